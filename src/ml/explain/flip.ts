/**
 * Counterfactual "prediction flip": the smallest change of ONE feature that changes the predicted
 * class (classification) or moves a regression prediction by at least `delta`.
 *
 * A tree model is piecewise constant in each feature between that feature's split thresholds, so
 * the only changes worth trying are moves into another interval between thresholds (numeric) or
 * to another category code the model tests (categorical). For each feature the intervals are
 * tried nearest first; the first that flips is that feature's answer. Across features "smallest"
 * means fewest thresholds crossed, then the shortest move relative to the feature's threshold
 * span (scale-free, since features have different units); a category change or filling a missing
 * value counts as one crossing over the whole span. Values are featurized float32 values;
 * the caller maps codes back to category names.
 */
import type { GbdtModel } from "../gbdt/model";
import { predictRow } from "./evaluate";

export interface PredictionFlip {
  feature: number;
  featureName: string;
  from: number;
  to: number;
  /** Regression: the new value. Classification: the new class index. */
  new_prediction: number;
  /** Classification: the new class label. */
  new_label?: string;
}

export interface FlipOptions {
  /** Regression only (required there): the minimum absolute move of the prediction. */
  delta?: number;
  /** Features allowed to change (default: all). */
  features?: number[];
}

interface Candidate {
  to: number;
  crossed: number; // thresholds crossed (1 for a category change or leaving NaN)
  distance: number; // |move| / threshold span, tie-break
}

/** Smallest float32 strictly greater than x (x finite). */
function nextUp32(x: number): number {
  const f = new Float32Array([x]);
  const bits = new Int32Array(f.buffer);
  if (x === 0) return 1.401298464324817e-45;
  bits[0] += x > 0 ? 1 : -1;
  return f[0];
}

function splitsOn(model: GbdtModel, feature: number): { thresholds: number[]; codes: number[]; categorical: boolean } {
  const thresholds = new Set<number>();
  const codes = new Set<number>();
  let categorical = false;
  for (const tree of model.trees) {
    tree.splitFeature.forEach((f, i) => {
      if (f !== feature) return;
      if (tree.isCategorical[i]) {
        categorical = true;
        for (const c of tree.leftCategories[i]) codes.add(c);
      } else thresholds.add(tree.threshold[i]);
    });
  }
  return { thresholds: [...thresholds].sort((a, b) => a - b), codes: [...codes].sort((a, b) => a - b), categorical };
}

/** One representative value per other interval of the feature, nearest first. */
function candidates(model: GbdtModel, feature: number, from: number): Candidate[] {
  const { thresholds: t, codes, categorical } = splitsOn(model, feature);
  // A category change or filling a missing value counts as one crossing over the whole span.
  if (categorical) return codes.filter((c) => c !== from).map((to) => ({ to, crossed: 1, distance: 1 }));
  if (t.length === 0) return [];
  const span = t[t.length - 1] - t[0] || Math.abs(t[0]) || 1;
  // Interval j is (t[j-1], t[j]] (j = 0 .. t.length); its representative is its upper threshold,
  // or just above the top threshold for the last one.
  const rep = (j: number) => (j < t.length ? t[j] : nextUp32(t[t.length - 1]));
  if (Number.isNaN(from)) return Array.from({ length: t.length + 1 }, (_, j) => ({ to: rep(j), crossed: 1, distance: 1 }));
  const x = Math.fround(from);
  let cur = 0;
  while (cur < t.length && x > t[cur]) cur++;
  const out: Candidate[] = [];
  for (let j = 0; j <= t.length; j++) {
    if (j === cur) continue;
    // Distance to the nearest point of interval j: its top edge when below us, just over its bottom edge when above.
    const edge = j < cur ? t[j] : nextUp32(t[j - 1]);
    out.push({ to: j < cur ? t[j] : rep(j), crossed: Math.abs(j - cur), distance: Math.abs(edge - x) / span });
  }
  return out.sort((a, b) => a.crossed - b.crossed || a.distance - b.distance);
}

export function predictionFlip(model: GbdtModel, row: ArrayLike<number>, options: FlipOptions = {}): PredictionFlip | null {
  const regression = model.objective === "regression";
  if (regression && !(options.delta! > 0)) throw new Error("predictionFlip: regression needs options.delta > 0");
  const base = predictRow(model, row);
  const work = Float32Array.from(row as ArrayLike<number>);
  const features = options.features ?? Array.from({ length: model.numFeatures }, (_, f) => f);

  let best: (PredictionFlip & { crossed: number; distance: number }) | null = null;
  for (const f of features) {
    for (const c of candidates(model, f, row[f])) {
      if (best && (c.crossed > best.crossed || (c.crossed === best.crossed && c.distance >= best.distance))) break;
      work[f] = c.to;
      const p = predictRow(model, work);
      const flipped = regression ? Math.abs(p.value - base.value) >= options.delta! : p.value !== base.value;
      if (flipped) {
        best = {
          feature: f,
          featureName: model.featureNames[f],
          from: row[f],
          to: c.to,
          new_prediction: p.value,
          crossed: c.crossed,
          distance: c.distance,
        };
        if (!regression) best.new_label = model.classes?.[p.value] ?? String(p.value);
        break;
      }
    }
    work[f] = row[f];
  }
  if (!best) return null;
  const { crossed: _c, distance: _d, ...flip } = best;
  return flip;
}
