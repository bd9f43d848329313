/**
 * The causal model's ONNX graph: features float32 [N,F] -> double -> one TreeEnsemble (ai.onnx.ml
 * v5, double) per GBDT, each + its base score (and Sigmoid for a binary outcome model):
 *   effect              double [N] (binary treatment) or [N, arms-1]  — the effect models
 *   outcome_if_treated  double [N] (binary treatment) or [N, arms-1]  — μ of each treated arm
 *   outcome_if_control  double [N]                                     — μ of the control arm
 *   propensity          double [N, arms]  — P(arm | x), control first (estimates over new data)
 * Arms in output columns follow head.treated_arms. Everything in double: equal to the engine's
 * predict() to float64 rounding.
 */
import type { GbdtModel } from "../gbdt/model";
import { GraphBuilder, ML_DOMAIN } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import { treeEnsemble } from "../onnx/tree-ensemble";
import { addFeaturesInput } from "../space/space";

export interface CausalPredictors {
  /** One regression GBDT per treated arm: the served CATE learner (or blend) as one ensemble. */
  effect: GbdtModel[];
  /** One outcome GBDT per arm, control first (regression, or binary: probability). */
  outcome: GbdtModel[];
  /** P(arm | x): binary (treated vs control) for two arms, multiclass over the arms otherwise. */
  propensity: GbdtModel;
}

/** The GBDT's prediction, double [N, outputs] (probabilities for a binary or multiclass model). */
function addGbdtStage(g: GraphBuilder, model: GbdtModel, x: string): string {
  const { attributes, inputShift } = treeEnsemble(model);
  const input = inputShift ? g.op("Add", [x, g.double(inputShift, [model.numFeatures])]) : x;
  const sum = g.op("TreeEnsemble", [input], attributes, { domain: ML_DOMAIN, prefix: "trees" });
  const raw = g.op("Add", [sum, g.double(model.baseScore, [model.numOutputs])]);
  if (model.objective === "binary") return g.op("Sigmoid", [raw]);
  return model.objective === "multiclass" ? g.op("Softmax", [raw], [{ name: "axis", int: 1 }]) : raw;
}

/** [N, arms] probabilities of each arm (control first) from the propensity model. */
function addPropensityStage(g: GraphBuilder, model: GbdtModel, x: string): string {
  const p = addGbdtStage(g, model, x);
  if (model.objective !== "binary") return p;
  const control = g.op("Sub", [g.double([1], [1]), p]);
  return g.op("Concat", [control, p], [{ name: "axis", int: 1 }]);
}

/** [N,1] columns -> [N] (one column) or [N, cols] (concatenated). */
function columns(g: GraphBuilder, cols: string[]): string {
  if (cols.length === 1) return g.op("Reshape", [cols[0], g.int64([-1])]);
  return g.op("Concat", cols, [{ name: "axis", int: 1 }]);
}

export function exportCausalOnnx(p: CausalPredictors, metadata: Record<string, string>): Uint8Array {
  const g = new GraphBuilder();
  const F = p.outcome[0].numFeatures;
  const x = addFeaturesInput(g, F);
  const A = p.effect.length;
  const shape = A === 1 ? ["N"] : ["N", A];
  const effect = columns(
    g,
    p.effect.map((m) => addGbdtStage(g, m, x)),
  );
  g.output(effect, "effect", DataType.DOUBLE, shape, "per-row effect of each treated arm vs the control (CATE)");
  const treated = columns(
    g,
    p.outcome.slice(1).map((m) => addGbdtStage(g, m, x)),
  );
  g.output(treated, "outcome_if_treated", DataType.DOUBLE, shape, "predicted outcome under each treated arm");
  const control = columns(g, [addGbdtStage(g, p.outcome[0], x)]);
  g.output(control, "outcome_if_control", DataType.DOUBLE, ["N"], "predicted outcome under the control arm");
  const K = p.outcome.length;
  g.output(
    addPropensityStage(g, p.propensity, x),
    "propensity",
    DataType.DOUBLE,
    ["N", K],
    "probability of each arm given the features, control first",
  );
  const trees = [...p.effect, ...p.outcome, p.propensity].reduce((s, m) => s + m.trees.length, 0);
  return g.finish({
    name: "causal",
    docString: `doubly-robust causal learner (${A} treated arm(s), ${trees} trees)`,
    metadata: { model_type: "causal", ...metadata },
    usesMl: true,
  });
}
