/**
 * Why a row's estimated effect is what it is: exact TreeSHAP of the CATE model (a regression GBDT
 * on the pseudo-outcomes) through the prediction explainer, then the words of a causal answer —
 * "the effect of offer = 1 (vs 0) on spend is estimated at +9.1 for this row, mainly because ..."
 * — instead of a prediction's. With several treated arms the first one is explained (the gloss
 * names it).
 */

import { formatNumber, formatSigned } from "../explain/explain-format";
import { explainPrediction, type RowExplanation } from "../explain/explain-prediction";
import type { FeaturizerSpec } from "../featurize";
import type { Frame } from "../frame";
import type { GbdtModel } from "../gbdt/model";

export interface CausalExplainSpec {
  featurizer: FeaturizerSpec;
  treatment_column: string;
  outcome_column: string;
  control_value: string;
  treated_arms: string[];
  effect_scale: string;
}

export function explainEffects(effectModels: GbdtModel[], spec: CausalExplainSpec, frame: Frame, rows: number[]): RowExplanation[] {
  const arm = spec.treated_arms[0];
  const rowsExplained = explainPrediction(
    effectModels[0],
    { featurizer: spec.featurizer, task: "regression", classes: null, labelColumn: "effect" },
    frame,
    rows,
  );
  const what = `the effect of ${spec.treatment_column} = '${arm}' (vs '${spec.control_value}') on ${spec.outcome_column}`;
  return rowsExplained.map((e) => {
    const effect = Number(e.prediction);
    const drivers = e.feature_contributions
      .filter((c) => Math.sign(c.contribution) === Math.sign(effect - e.base_value) && c.contribution !== 0)
      .slice(0, 2)
      .map(
        (c) =>
          `${c.column} is ${c.value === null ? "missing" : typeof c.value === "string" ? `'${c.value}'` : String(c.value)} (${formatSigned(c.contribution)})`,
      );
    const because = drivers.length
      ? `, ${effect >= e.base_value ? "above" : "below"} the average ${formatNumber(e.base_value)} mainly because ${drivers.join(" and ")}`
      : "";
    const flip = e.prediction_flip
      ? `; with ${e.prediction_flip.column} of ${String(e.prediction_flip.to)} it would be ${formatNumber(Number(e.prediction_flip.new_prediction))}`
      : "";
    const top = e.feature_contributions[0];
    return {
      ...e,
      output_scale: spec.effect_scale,
      explanation_text: `For this row, ${what} is estimated at ${formatSigned(effect)} (${spec.effect_scale})${because}${flip}.`,
      explanation_label: top ? `${top.column}=${top.value === null ? "missing" : String(top.value)}` : "no driver",
      explanation_gloss: `Contributions are in ${spec.effect_scale}: they add to the base value ${formatNumber(e.base_value)} (the average estimated effect over the training data) to give this row's estimated effect ${formatNumber(effect)}${spec.treated_arms.length > 1 ? ` (treated arm '${arm}'; the model has ${spec.treated_arms.length} treated arms)` : ""}.`,
    };
  });
}
