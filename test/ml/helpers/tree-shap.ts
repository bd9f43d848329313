import { type ShapExplanation, TreeShapExplainer } from "../../../src/ml/explain/treeshap";
import type { GbdtModel } from "../../../src/ml/gbdt/model";

/** One row's SHAP values in one call (the service builds a TreeShapExplainer once for many rows). */
export function treeShap(model: GbdtModel, row: ArrayLike<number>): ShapExplanation {
  return new TreeShapExplainer(model).explain(row);
}
