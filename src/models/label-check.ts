import { InvalidInput } from "../core/errors";
import { MAX_CLASSES } from "../core/limits";
import { inferTask, type Task } from "../ml/label";
import type { ColumnProfile } from "../ml/profile";

/**
 * What can be known about a prediction model's columns before training, from the dataset
 * version's column profile: a 422 now instead of a failed job later. The training job checks
 * again on the data itself (e.g. non-numeric values in a regression label). Paths name the
 * fields of the train request.
 */
export function checkPredictionColumns(
  profile: ColumnProfile[],
  rowCount: number,
  req: { label_column?: string; input_columns?: string[]; task?: Task },
): void {
  const label = req.label_column;
  if (!label) throw InvalidInput.field(["label_column"], "Field required: a prediction model needs the target column", null, "missing");
  const byName = new Map(profile.map((c) => [c.name, c]));
  const col = byName.get(label);
  if (!col) {
    throw InvalidInput.field(["label_column"], `Column "${label}" is not in the dataset; its columns are: ${columnList(profile)}`, label);
  }
  if (col.missing_count >= rowCount) throw InvalidInput.field(["label_column"], `Label column "${label}" has no values (all missing)`, label);
  if (col.distinct_count < 2) {
    throw InvalidInput.field(["label_column"], `Label column "${label}" has a single distinct value; a prediction model needs at least two`, label);
  }
  const task = req.task ?? inferTask({ kind: col.type, distinct: col.distinct_count, integers: col.integer_valued });
  if (task === "classification" && col.distinct_count > MAX_CLASSES) {
    const hint = col.type === "numeric" ? ' Set params.task to "regression" to predict it as a number.' : "";
    throw InvalidInput.field(
      ["label_column"],
      `Label column "${label}" has ${col.distinct_count} distinct values; classification allows at most ${MAX_CLASSES} classes.${hint}`,
      label,
    );
  }
  if (task === "regression" && !["numeric", "boolean", "datetime"].includes(col.type)) {
    throw InvalidInput.field(["params", "task"], `Regression needs a numeric label; column "${label}" is ${col.type}`, "regression");
  }
  if (req.input_columns) {
    const unknown = req.input_columns.filter((c) => !byName.has(c));
    if (unknown.length) {
      throw InvalidInput.field(
        ["input_columns"],
        `Columns not in the dataset: ${unknown.join(", ")}; its columns are: ${columnList(profile)}`,
        unknown,
      );
    }
    if (req.input_columns.includes(label)) {
      throw InvalidInput.field(["input_columns"], `The label column "${label}" cannot also be an input column`, req.input_columns);
    }
  }
}

function columnList(profile: ColumnProfile[]): string {
  const names = profile.map((c) => c.name);
  return names.length > 30 ? `${names.slice(0, 30).join(", ")}, … (${names.length} in all)` : names.join(", ");
}
