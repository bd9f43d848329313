import { InvalidInput } from "../core/errors";
import type { ColumnProfile } from "../ml/profile";
import { checkUnsupervisedColumns } from "./unsupervised-check";

/**
 * What can be known about a causal model's request before training, from the dataset version's
 * column profile: the outcome (label_column) is required, present and not constant; a named
 * treatment (params.action_column) is present, not the outcome, and has at least two values. The
 * training job checks the data again and infers the treatment when none is named.
 */
export function checkCausalColumns(
  profile: ColumnProfile[],
  rowCount: number,
  req: { label_column?: string; input_columns?: string[]; params: Record<string, unknown> },
): void {
  const byName = new Map(profile.map((c) => [c.name, c]));
  const columns = () => [...byName.keys()].join(", ");
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
  checkUnsupervisedColumns(profile, rowCount, { input_columns: req.input_columns, params: {} });
}
