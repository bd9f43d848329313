/**
 * The AIPW average effect with the engine's cross-fitted outcome models and variants of the
 * propensity (or of the interval), same folds and seeds (nuisance fits and φ only, no effect
 * model, so a variant costs seconds per seed):
 *
 *   npx tsx bench/causal/propensity/smooth-variants.ts <A|B|C|D|po> <first seed> <seeds> [variants, comma-separated]
 *
 * Variants (L a ridge λ; the smooth models are ./smooth-propensity, fit on the same folds):
 * - engine: the engine's μ̂ and ê as they stand (its screening and cross-fitting);
 * - quadL: ê from the logistic model on z, z², z_i·z_j; splL: on the hinge splines and their
 *   products across features;
 * - screenL: quadL where its log loss on the screening fold (fold 0) beats the best GBDT
 *   setting's, else the engine's ê; sscr: the spline model with λ chosen among LAMBDAS on the
 *   screening fold, used where it beats the GBDT; sbest: the same, always used;
 * - tmixL / mixL: ê = ½ (spline / quadratic ê) + ½ GBDT ê; tslL / slL: the weight of the smooth ê
 *   in that mix chosen on the screening fold by log loss (grid of 0.05);
 * - suffix +fv: se = max(influence-function se, sd of the 5 fold means / √5); suffix +hajek:
 *   AIPW with normalized (Hájek) inverse-propensity weights, se from its linearization.
 */
import { aipwEstimate, crossFitSteps, pseudoOutcomes } from "../../../src/ml/causal/aipw";
import { assignFolds, type FitInput, fitGbdt, predictRows } from "../../../src/ml/causal/fit";
import { chooseNuisanceSettings, NUISANCE_SETTINGS } from "../../../src/ml/causal/nuisance-settings";
import { applyFeaturizer, featureKinds, selectFeatures } from "../../../src/ml/featurize";
import type { Frame } from "../../../src/ml/frame";
import { buildRepresentation, deriveModelFeatures } from "../../../src/ml/representation/representation";
import { type Benchmark, nieWager } from "../benchmarks";
import { causalData } from "../data";
import { fitSmoothPropensity, predictSmoothPropensity } from "./smooth-propensity";

const [setup, firstArg, seedsArg, variantsArg] = process.argv.slice(2);
const VARIANTS = (variantsArg ?? "engine,quad1,screen1").split(",");
const FOLDS = 5;
const CLIP: [number, number] = [0.01, 0.99];
const LAMBDAS = [10, 30, 100];

function make(seed: number): Benchmark {
  if (setup === "po") {
    const d = causalData({ n: 2000, seed: 3000 + seed, effect: 1, heterogeneity: 1, confounding: 3 });
    return { frame: d.frame, tau: d.tau };
  }
  return nieWager(setup as "A", 1000, seed);
}

function prepare(frame: Frame) {
  const rep = buildRepresentation(frame);
  const derived = deriveModelFeatures(rep, "y", undefined);
  const keep = derived.featurizer.features.map((f) => f.source !== "treated");
  const featurizer = selectFeatures(derived.featurizer, (src) => src !== "treated", "treatment column");
  const m = applyFeaturizer(featurizer, frame);
  const input: FitInput = {
    m,
    categorical: featureKinds(featurizer).map((k) => k.type === "categorical"),
    featureNames: featurizer.features.map((f) => f.name),
    bins: derived.bins.filter((_, i) => keep[i]),
  };
  const col = (name: string) => (frame.columns.find((c) => c.name === name) as { values: Float64Array }).values;
  const y = Float64Array.from(col("y"));
  const arm = Int32Array.from(col("treated"));
  const rows = Int32Array.from({ length: frame.rowCount }, (_, i) => i);
  return { input, y, arm, rows };
}

const logLoss = (p: number, y: number) => -Math.log(Math.max(1e-12, y === 1 ? p : 1 - p));

/** Out-of-fold ê from the smooth model, same folds as the engine's cross-fitting. */
type Basis = "quadratic" | "spline";
function smoothCrossFit(input: FitInput, arm: Int32Array, rows: Int32Array, lambda: number, basis: Basis): Float64Array {
  const fold = assignFolds(rows, arm, 2, FOLDS, 0);
  const label = Float64Array.from(arm);
  const e = new Float64Array(rows.length * 2);
  for (let f = 0; f < FOLDS; f++) {
    const idx = [...rows.keys()].filter((j) => fold[j] === f);
    const train = rows.filter((_, j) => fold[j] !== f);
    const model = fitSmoothPropensity(input.m, input.categorical, label, train, lambda, basis);
    const p = predictSmoothPropensity(
      model,
      input.m,
      Int32Array.from(idx, (j) => rows[j]),
    );
    idx.forEach((j, i) => {
      e[j * 2] = 1 - p[i];
      e[j * 2 + 1] = p[i];
    });
  }
  return e;
}

/** The smooth model's log loss on the screening fold (fold 0), fit on the rest. */
function smoothScreenLoss(input: FitInput, arm: Int32Array, rows: Int32Array, lambda: number, basis: Basis): number {
  const fold = assignFolds(rows, arm, 2, FOLDS, 0);
  const held = rows.filter((_, j) => fold[j] === 0);
  const train = rows.filter((_, j) => fold[j] !== 0);
  const model = fitSmoothPropensity(input.m, input.categorical, Float64Array.from(arm), train, lambda, basis);
  const p = predictSmoothPropensity(model, input.m, held);
  let s = 0;
  for (let i = 0; i < held.length; i++) s += logLoss(p[i], arm[held[i]]);
  return s / held.length;
}

/** Screening fold: the GBDT (winning setting) and the smooth model's held-out ê, and the labels. */
function screenPredictions(input: FitInput, arm: Int32Array, rows: Int32Array, lambda: number, basis: Basis, setting: string) {
  const fold = assignFolds(rows, arm, 2, FOLDS, 0);
  const held = rows.filter((_, j) => fold[j] === 0);
  const train = rows.filter((_, j) => fold[j] !== 0);
  const label = Float64Array.from(arm);
  const smooth = predictSmoothPropensity(fitSmoothPropensity(input.m, input.categorical, label, train, lambda, basis), input.m, held);
  const gbdt = predictRows(
    fitGbdt(input, label, train, "binary", { kind: "nuisance", seed: 37, numClasses: 2, settings: NUISANCE_SETTINGS[setting] }),
    input.m,
    held,
  );
  return { smooth, gbdt, y: Int32Array.from(held, (r) => arm[r]) };
}

/** The weight w of the smooth model in w·smooth + (1 − w)·gbdt minimising held-out log loss (grid of 0.05). */
function blendWeight(sp: { smooth: Float64Array; gbdt: Float64Array; y: Int32Array }): number {
  let best = 0;
  let bestLoss = Infinity;
  for (let k = 0; k <= 20; k++) {
    const w = k / 20;
    let s = 0;
    for (let i = 0; i < sp.y.length; i++) s += logLoss(w * sp.smooth[i] + (1 - w) * sp.gbdt[i], sp.y[i]);
    if (s < bestLoss - 1e-12) {
      bestLoss = s;
      best = w;
    }
  }
  return best;
}

/**
 * AIPW with normalized (Hájek) weights: mean(μ̂1 − μ̂0) + R1 − R0, R_k the 1/ê-weighted mean of
 * arm k's residuals; se from the ratio's linearization.
 */
function hajekEstimate(mu: Float64Array, e: Float64Array, y: Float64Array, arm: Int32Array, rows: Int32Array) {
  const n = rows.length;
  const ec = (j: number) => Math.min(CLIP[1], Math.max(CLIP[0], e[j * 2 + 1]));
  let w1 = 0,
    w0 = 0,
    a1 = 0,
    a0 = 0,
    plug = 0;
  for (let j = 0; j < n; j++) {
    const r = rows[j];
    const p = ec(j);
    plug += mu[j * 2 + 1] - mu[j * 2];
    if (arm[r] === 1) (w1 += 1 / p), (a1 += (y[r] - mu[j * 2 + 1]) / p);
    else (w0 += 1 / (1 - p)), (a0 += (y[r] - mu[j * 2]) / (1 - p));
  }
  const R1 = a1 / w1;
  const R0 = a0 / w0;
  const ate = plug / n + R1 - R0;
  const inf = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const r = rows[j];
    const p = ec(j);
    inf[j] = mu[j * 2 + 1] - mu[j * 2] + (arm[r] === 1 ? (y[r] - mu[j * 2 + 1] - R1) / p / (w1 / n) : -(y[r] - mu[j * 2] - R0) / (1 - p) / (w0 / n));
  }
  const base = aipwEstimate(inf);
  const se = base.std_error;
  return { ate, std_error: se, ci_low: ate - 1.959964 * se, ci_high: ate + 1.959964 * se, n };
}

const stats = Object.fromEntries(VARIANTS.map((v) => [v, { covered: 0, err: [] as number[], hw: [] as number[], chosen: 0, clipped: 0 }]));
const seeds = Number(seedsArg);
const t0 = process.cpuUsage();
for (let seed = Number(firstArg); seed < Number(firstArg) + seeds; seed++) {
  const b = make(seed);
  const truth = b.tau.reduce((s, v) => s + v, 0) / b.tau.length;
  const { input, y, arm, rows } = prepare(b.frame);
  const screen = chooseNuisanceSettings(input, y, arm, rows, 2, { folds: FOLDS, seed: 0, outcome: "regression" });
  let sc = screen.next();
  while (!sc.done) sc = screen.next();
  const gbdtLoss = Math.min(...Object.values(sc.value.propensityLoss));
  const cross = crossFitSteps(input, y, arm, rows, 2, {
    folds: FOLDS,
    seed: 0,
    outcome: "regression",
    outcomeSettings: NUISANCE_SETTINGS[sc.value.outcome],
    propensitySettings: NUISANCE_SETTINGS[sc.value.propensity],
  });
  let cf = cross.next();
  while (!cf.done) cf = cross.next();
  const engine = cf.value;
  const line: string[] = [];
  const smooth: Record<string, Float64Array> = {};
  const losses: string[] = [];
  const fold = assignFolds(rows, arm, 2, FOLDS, 0);
  // spline λ chosen on the screening fold among LAMBDAS (cached per seed)
  let grid: { lambda: number; loss: number } | null = null;
  const bestSpline = () =>
    (grid ??= LAMBDAS.map((l) => ({ lambda: l, loss: smoothScreenLoss(input, arm, rows, l, "spline") })).reduce((a, b) => (b.loss < a.loss ? b : a)));
  for (const full of VARIANTS) {
    const foldVariance = full.endsWith("+fv");
    const hajek = full.endsWith("+hajek");
    const v = full.replace(/\+(fv|hajek)$/, "");
    let e = engine.e;
    const lambda = Number(v.replace(/^[a-z]+/, ""));
    const basis: Basis = v.startsWith("t") || v.startsWith("sp") ? "spline" : "quadratic";
    const key = `${basis}${lambda}`;
    if (v.startsWith("quad") || v.startsWith("spl")) e = smooth[key] ??= smoothCrossFit(input, arm, rows, lambda, basis);
    else if (v.startsWith("screen") || v.startsWith("tscreen")) {
      const l = smoothScreenLoss(input, arm, rows, lambda, basis);
      losses.push(`${l.toFixed(4)}`);
      if (l < gbdtLoss) {
        e = smooth[key] ??= smoothCrossFit(input, arm, rows, lambda, basis);
        stats[v].chosen++;
      }
    } else if (v.startsWith("mix") || v.startsWith("tmix") || v.startsWith("sl") || v.startsWith("tsl")) {
      const se = (smooth[key] ??= smoothCrossFit(input, arm, rows, lambda, basis));
      let w = 0.5;
      if (v.includes("sl")) {
        w = blendWeight(screenPredictions(input, arm, rows, lambda, basis, sc.value.propensity));
        losses.push(`w${w.toFixed(2)}`);
        stats[v].chosen += w;
      }
      e = Float64Array.from(se, (x, i) => w * x + (1 - w) * engine.e[i]);
    } else if (v === "sscr" || v === "sbest") {
      const g = bestSpline();
      losses.push(`λ${g.lambda} ${g.loss.toFixed(4)}`);
      if (v === "sbest" || g.loss < gbdtLoss) {
        e = smooth[`spline${g.lambda}`] ??= smoothCrossFit(input, arm, rows, g.lambda, "spline");
        stats[full].chosen++;
      }
    } else if (v !== "engine") throw new Error(`unknown variant ${v}`);
    const po = pseudoOutcomes({ mu: engine.mu, e }, y, arm, rows, 2, CLIP);
    const phi = po.phi;
    stats[full].clipped += po.clippedRows / rows.length / seeds;
    const est = hajek ? hajekEstimate(engine.mu, e, y, arm, rows) : aipwEstimate(phi);
    if (foldVariance) {
      // the larger of the influence-function se and the spread of the fold means (each fold's φ
      // from different nuisance models) over √folds
      const means = Array.from({ length: FOLDS }, (_, f) => {
        let s = 0;
        let c = 0;
        for (let j = 0; j < phi.length; j++) if (fold[j] === f) (s += phi[j]), c++;
        return s / c;
      });
      const mm = means.reduce((a, b) => a + b, 0) / FOLDS;
      const sf = Math.sqrt(means.reduce((a, b) => a + (b - mm) ** 2, 0) / (FOLDS - 1) / FOLDS);
      const se = Math.max(est.std_error, sf);
      est.std_error = se;
      est.ci_low = est.ate - 1.959964 * se;
      est.ci_high = est.ate + 1.959964 * se;
    }
    const st = stats[full];
    if (est.ci_low <= truth && truth <= est.ci_high) st.covered++;
    st.err.push(est.ate - truth);
    st.hw.push(est.ci_high - est.ate);
    line.push(`${full} ${(est.ate - truth).toFixed(3)}±${(est.ci_high - est.ate).toFixed(3)}`);
  }
  console.log(`${setup} ${seed}: ${line.join(", ")} | gbdt e loss ${gbdtLoss.toFixed(4)} smooth ${losses.join("/")}`);
}
const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((s, v) => s + (v - mean(xs)) ** 2, 0) / (xs.length - 1));
console.log("| setup | seeds | variant | coverage | bias | rmse | mean half-width | sd/se | smooth chosen | rows clipped |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const v of VARIANTS) {
  const st = stats[v];
  const rmse = Math.sqrt(mean(st.err.map((x) => x * x)));
  console.log(
    `| ${setup} | ${firstArg}–${Number(firstArg) + seeds - 1} | ${v} | ${(st.covered / seeds).toFixed(2)} (${st.covered}/${seeds}) | ${mean(st.err) >= 0 ? "+" : ""}${mean(st.err).toFixed(3)} | ${rmse.toFixed(3)} | ${mean(st.hw).toFixed(3)} | ${(sd(st.err) / (mean(st.hw) / 1.959964)).toFixed(2)} | ${v.includes("screen") || v.startsWith("ss") || v.startsWith("sb") ? `${st.chosen}/${seeds}` : v.includes("sl") ? `mean w ${(st.chosen / seeds).toFixed(2)}` : "—"} | ${(100 * st.clipped).toFixed(1)}% |`,
  );
}
const cpu = process.cpuUsage(t0);
console.log(`CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
