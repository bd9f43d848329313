/** Markdown tables of bench/unsupervised/clustering.ts (what clustering-RESULTS.md shows between its markers). */
import type { KMeansAlgorithm } from "../../src/ml/kmeans/kmeans";

/** A scikit-learn KMeans job's answer (bench/unsupervised/clustering_reference.py). */
export interface RefFit {
  wall_s: number;
  cpu_s: number;
  runs: { seed: number; inertia: number; n_iter: number; ari?: number }[];
}

export interface Quality {
  name: string;
  space: string;
  k: number;
  rows: number;
  cols: number;
  ours: { ari: number; inertia: number }[];
  ref: RefFit;
}

/** Fits of many seeds on one matrix: how often each side reaches the lowest inertia, and the ARI there. */
export interface Optima {
  name: string;
  nInit: number;
  ours: { ari: number; inertia: number }[];
  ref: RefFit;
}

/** Sums over the speed seeds of each seed's fastest fit. */
export interface Timing {
  wall: number;
  cpu: number;
  iterations: number;
  inertia: number;
}

export interface Speed {
  name: string;
  nInit: number;
  ours: Timing;
  lloyd: Timing;
  elkan: Timing;
}

export interface Variant {
  name: string;
  iterations: number;
  cpu: Record<KMeansAlgorithm, number>;
}

export interface AutoK {
  trueK: number;
  chosen: number;
  scores: { k: number; silhouette_score: number | null }[];
  silhouette: number;
  sklearnSilhouette: number;
}

export interface Report {
  command: string;
  versions: Record<string, string>;
  nInit: number;
  seeds: number;
  speedSeeds: number[];
  repeats: number;
  quality: Quality[];
  optima: Optima[];
  speed: Speed[];
  variants: Variant[];
  autoK: AutoK[];
}

export function mean(v: number[]): number {
  return v.reduce((a, b) => a + b, 0) / v.length;
}

const f = (x: number, digits = 4) => x.toFixed(digits);
const signed = (x: number) => `${x >= 0 ? "+" : ""}${f(x)}`;

export function renderReport(r: Report): string {
  const lines: string[] = [
    "# Clustering benchmark: our k-means vs scikit-learn KMeans",
    "",
    `Command: \`${r.command}\` — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.`,
    `Node ${process.version}; ${Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}; single thread on both sides (OMP/OPENBLAS/MKL_NUM_THREADS=1). ` +
      "The machine (2 cores) is shared with other benchmarks: timings are noisy, CPU time is the steadier figure.",
    "",
    "Ours: greedy k-means++ seeding (2 + ln k candidates per center, as scikit-learn) then exact Hamerly iterations; " +
      `KMeans: init="k-means++", same n_init, max_iter=300, tol=1e-4 (both scale tol by the mean column variance and stop on unchanged labels).`,
    "",
    `## 1. Quality: adjusted Rand index against the known labels (n_init=${r.nInit}, mean over ${r.seeds} seeds)`,
    "",
    "ARI measures agreement with the labels, which k-means does not optimize: the last column counts the seeds whose fit reached " +
      "the lowest inertia either side found (within 0.01%), the objective both minimize.",
    "",
    "| data | space | rows × cols | k | ARI ours | ARI sklearn (lloyd) | ours − sklearn | mean inertia ours / sklearn | seeds at the lowest inertia: ours / sklearn |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const q of r.quality) {
    const theirs = q.ref.runs.map((x) => x.inertia);
    const ours = q.ours.map((o) => o.inertia);
    const a = mean(q.ours.map((o) => o.ari));
    const b = mean(q.ref.runs.map((x) => x.ari!));
    const lowest = Math.min(...ours, ...theirs);
    const atBest = (v: number[]) => v.filter((x) => x <= lowest * 1.0001).length;
    lines.push(
      `| ${q.name} | ${q.space} | ${q.rows} × ${q.cols} | ${q.k} | ${f(a)} | ${f(b)} | ${signed(a - b)} | ${f(mean(ours) / mean(theirs))} | ${atBest(ours)} / ${atBest(theirs)} of ${q.ours.length} |`,
    );
  }
  if (r.optima.length) {
    lines.push(
      "",
      `### Where the objective and the labels disagree: ${r.optima[0].name}, ${r.optima[0].ours.length} seeds per side`,
      "",
      "Fits split by their inertia: within 0.5% of the lowest inertia either side found (good optima), or not.",
      "",
      "| n_init | lowest inertia | good fits: ours / sklearn | mean ARI of good fits: ours / sklearn | mean ARI of the others: ours / sklearn | mean inertia ours / sklearn |",
      "|---:|---:|---:|---:|---:|---:|",
    );
    for (const o of r.optima) {
      const theirs = o.ref.runs.map((x) => ({ ari: x.ari!, inertia: x.inertia }));
      const lowest = Math.min(...o.ours.map((x) => x.inertia), ...theirs.map((x) => x.inertia));
      const good = (v: { inertia: number }[]) => v.filter((x) => x.inertia <= lowest * 1.005);
      const rest = (v: { inertia: number }[]) => v.filter((x) => x.inertia > lowest * 1.005);
      const ari = (v: { ari: number }[]) => (v.length ? f(mean(v.map((x) => x.ari))) : "–");
      const inertia = mean(o.ours.map((x) => x.inertia)) / mean(theirs.map((x) => x.inertia));
      lines.push(
        `| ${o.nInit} | ${f(lowest, 1)} | ${good(o.ours).length} / ${good(theirs).length} of ${o.ours.length} | ${ari(good(o.ours) as typeof o.ours)} / ${ari(good(theirs) as typeof theirs)} | ${ari(rest(o.ours) as typeof o.ours)} / ${ari(rest(theirs) as typeof theirs)} | ${f(inertia)} |`,
      );
    }
  }
  lines.push(
    "",
    `## 2. Speed: k-means, k = 8, single thread; per seed (${r.speedSeeds.join(", ")}) the fastest of ${r.repeats} fits, summed over the seeds`,
    "",
    "Runs alternate between the two sides (ours, then KMeans lloyd, then elkan, per pass) so that both see the same machine load. " +
      "Iterations: of the kept restart, summed over the seeds.",
    "",
    "| data | n_init | ours wall / CPU s | sklearn lloyd wall / CPU s | sklearn elkan wall / CPU s | CPU ours / best sklearn | iterations ours / lloyd / elkan | inertia ours / lloyd |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const s of r.speed) {
    const t = (x: Timing) => `${f(x.wall, 3)} / ${f(x.cpu, 3)}`;
    const ratio = s.ours.cpu / Math.min(s.lloyd.cpu, s.elkan.cpu);
    lines.push(
      `| ${s.name} | ${s.nInit} | ${t(s.ours)} | ${t(s.lloyd)} | ${t(s.elkan)} | ${f(ratio, 2)} | ${s.ours.iterations} / ${s.lloyd.iterations} / ${s.elkan.iterations} | ${f(s.ours.inertia / s.lloyd.inertia, 6)} |`,
    );
  }
  lines.push(
    "",
    `### Our iteration variants (same k-means++ seeds, iterations only, identical results; CPU s, fastest of ${r.repeats})`,
    "",
    "| data | iterations | Hamerly | Elkan | plain Lloyd | Elkan / Hamerly | Lloyd / Hamerly |",
    "|---|---:|---:|---:|---:|---:|---:|",
  );
  for (const v of r.variants) {
    const c = v.cpu;
    lines.push(
      `| ${v.name} | ${v.iterations} | ${f(c.hamerly, 3)} | ${f(c.elkan, 3)} | ${f(c.lloyd, 3)} | ${f(c.elkan / c.hamerly, 2)} | ${f(c.lloyd / c.hamerly, 2)} |`,
    );
  }
  lines.push(
    "",
    "## 3. Choosing k (no n_clusters): well-separated blobs, 5000 × 8, features space",
    "",
    "| true k | chosen k | silhouette per k (sample of 2000 rows) | our silhouette / sklearn's (same sample, labels) |",
    "|---:|---:|---|---:|",
  );
  for (const a of r.autoK) {
    const per = a.scores.map((s) => `${s.k}: ${s.silhouette_score === null ? "–" : f(s.silhouette_score, 3)}`).join(", ");
    lines.push(`| ${a.trueK} | ${a.chosen} | ${per} | ${f(a.silhouette, 6)} / ${f(a.sklearnSilhouette, 6)} |`);
  }
  return lines.join("\n");
}
