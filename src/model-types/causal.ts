/**
 * The `causal` model type: the effect of a treatment (`params.action_column`, inferred when not
 * named) on the outcome (`label_column`), by cross-fitted outcome and propensity models. Its answer
 * is each row's `effect` with `outcome_if_treated` and `outcome_if_control` (lists in the order
 * of the model's treated arms when there are several); TreeSHAP over the effect models explains a
 * row (gbdt.json). The average effect over a set of rows is its own route (models/causal-effect).
 */
import { z } from "zod";
import { InvalidInput } from "../core/errors";
import { COLUMN_NAME_MAX_CHARS } from "../core/limits";
import { type CausalExplainSpec, explainEffects } from "../ml/causal/explain";
import { LEARNERS } from "../ml/causal/learners";
import { DEFAULT_CAUSAL_PARAMS, trainCausalSteps } from "../ml/causal/model";
import { MlInputError } from "../ml/errors";
import type { Frame } from "../ml/frame";
import type { GbdtModel } from "../ml/gbdt/model";
import type { ColumnProfile } from "../ml/profile";
import { ARTIFACT_FILES } from "../storage/keys";
import { columnTypesOf, outputColumn, outputRows, round7 } from "./answer-columns";
import type { UnsupervisedArtifact } from "./artifact";
import { allColumns, checkInputColumnsExist, columnsByName } from "./columns-check";
import type { ModelTypeModule, RequestColumns, ResultTable } from "./contract";
import { fitOnRepresentation } from "./fit-on-representation";
import { seed } from "./params-fields";

const params = z
  .object({
    action_column: z.string().min(1).max(COLUMN_NAME_MAX_CHARS).optional(),
    control_value: z
      .union([z.string().min(1).max(COLUMN_NAME_MAX_CHARS), z.number(), z.boolean()])
      .transform(String)
      .optional(),
    propensity_clip: z
      .tuple([z.number().gt(0).lt(0.5), z.number().gt(0.5).lt(1)])
      .optional()
      .describe("[low, high]: propensities are clipped to this range"),
    folds: z.number().int().min(2).max(20).optional(),
    learner: z
      .enum(["auto", ...LEARNERS])
      .optional()
      .describe(
        "the CATE learner: auto (T, S, X and DR learners and their blends compared by a cross-validated loss, the best served) or a fixed one",
      ),
    seed,
  })
  .strict();

/** A causal model's number of treated arms (1 for a binary treatment). */
function treatedArms(a: UnsupervisedArtifact): number {
  return Array.isArray(a.head.treated_arms) ? a.head.treated_arms.length : 1;
}

export const causal: ModelTypeModule<UnsupervisedArtifact, "causal"> = {
  name: "causal",
  params: { schema: params, defaults: DEFAULT_CAUSAL_PARAMS },
  request: { label: "outcome", check: checkCausalColumns },
  training: fitOnRepresentation((frame, opts) => {
    if (!opts.labelColumn) throw new MlInputError("a causal model needs its outcome column (label_column)");
    return trainCausalSteps(frame, { ...opts, labelColumn: opts.labelColumn });
  }),
  answer: {
    valuesPerRow: (a) => 2 + 2 * treatedArms(a),
    chunked: true,
    table(a, { ids, outputs }): ResultTable {
      const n = ids.length;
      const perArm = (name: string) => (treatedArms(a) === 1 ? outputColumn(outputs[name], n).map(round7) : outputRows(outputs[name], n));
      return {
        id: ids,
        effect: perArm("effect"),
        outcome_if_treated: perArm("outcome_if_treated"),
        outcome_if_control: outputColumn(outputs.outcome_if_control, n).map(round7),
      };
    },
    columnTypes: (a, table) => columnTypesOf(table, treatedArms(a) > 1 ? { effect: "string", outcome_if_treated: "string" } : {}),
  },
  explain: {
    async load(a, file) {
      const models = (await file(ARTIFACT_FILES.gbdt)) as GbdtModel[] | null;
      if (!models) return null;
      const spec = { featurizer: a.featurizer, ...(a.head as unknown as Omit<CausalExplainSpec, "featurizer">) };
      return (frame: Frame, rows: number[]) => explainEffects(models, spec, frame, rows);
    },
  },
  docs: {
    params:
      "Causal (label_column is the outcome): action_column (the treatment; inferred when absent), control_value, propensity_clip ([0.01, 0.99]), folds (5), learner (auto: t, s, x or dr chosen by cross-validated loss, or a blend; or one of them fixed), seed",
    columns:
      "Causal: `effect` (the row's predicted effect of the treatment vs the control, on the outcome's scale or as a change of probability), `outcome_if_treated`, `outcome_if_control` (lists in the order of the model's treated_arms when the treatment has several treated arms)",
    metrics: null,
    summary:
      "causal the treatment and why, the average effect with its 95% interval, treated/control counts, the propensity range and clipped share, overlap warnings, the features driving the effect, and the learner served with every candidate's cross-validated loss",
  },
};

/**
 * What the column profile tells before training: the outcome (label_column) is given, present
 * and not constant; a named treatment (params.action_column) is present, not the outcome, and
 * has at least two values; neither is an input column. The job checks the data again and infers
 * the treatment when none is named.
 */
function checkCausalColumns(profile: ColumnProfile[], rowCount: number, req: RequestColumns): void {
  const byName = columnsByName(profile);
  const columns = () => allColumns(profile);
  const label = req.label_column;
  if (!label) throw InvalidInput.field(["label_column"], "Field required: a causal model needs its outcome column", null, "missing");
  const outcome = byName.get(label);
  if (!outcome) throw InvalidInput.field(["label_column"], `Column "${label}" is not in the dataset; its columns are: ${columns()}`, label);
  if (outcome.missing_count >= rowCount || outcome.distinct_count < 2) {
    throw InvalidInput.field(
      ["label_column"],
      `Outcome column "${label}" has ${outcome.distinct_count < 1 ? "no values" : "a single value"}: there is no effect to estimate`,
      label,
    );
  }
  const action = req.params.action_column;
  if (typeof action === "string") {
    const col = byName.get(action);
    if (!col)
      throw InvalidInput.field(["params", "action_column"], `Column "${action}" is not in the dataset; its columns are: ${columns()}`, action);
    if (action === label)
      throw InvalidInput.field(["params", "action_column"], `The treatment column cannot also be the outcome (label_column) "${label}"`, action);
    if (col.distinct_count < 2) {
      throw InvalidInput.field(
        ["params", "action_column"],
        `Treatment column "${action}" has a single value: a causal effect needs treated and control rows`,
        action,
      );
    }
  }
  for (const name of [label, action]) {
    if (typeof name === "string" && req.input_columns?.includes(name)) {
      throw InvalidInput.field(
        ["input_columns"],
        `"${name}" is the ${name === label ? "outcome" : "treatment"} column; it cannot also be an input column`,
        req.input_columns,
      );
    }
  }
  checkInputColumnsExist(profile, req.input_columns);
}
