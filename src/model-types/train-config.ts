/**
 * A train request's configuration as its model type reads it: `params` validated by the type's
 * schema (issues named under `params`; an unknown key answered with the keys the type takes), the
 * label kept only by types that have one, and the columns checked against the dataset version's
 * profile. Kept on the model version: a retrain reads it back.
 */
import { InvalidInput } from "../core/errors";
import { fieldIssuesFromZod } from "../core/field-issues";
import type { ModelTypeModule, RequestColumns } from "./contract";

/** What a version is trained with (the columns of a train request, and its type). */
export interface TypeConfig extends RequestColumns {
  model_type: string;
}

export function typeConfig(
  type: ModelTypeModule,
  req: { label_column?: string; input_columns?: string[]; params?: Record<string, unknown> },
): TypeConfig {
  return {
    model_type: type.name,
    // only types with a label keep one; the others ignore a label given
    label_column: type.request.label ? (req.label_column ?? null) : null,
    input_columns: req.input_columns ?? null,
    params: parseParams(type, req.params ?? {}),
  };
}

/** The type's params, validated; their issues are named under `params`. */
function parseParams(type: ModelTypeModule, raw: Record<string, unknown>): Record<string, unknown> {
  const schema = type.params.schema;
  const r = schema.safeParse(raw);
  if (r.success) return r.data as Record<string, unknown>;
  // An unknown key is most often a typo: say which keys this model type takes.
  const known = Object.keys(schema.shape).join(", ");
  const issues = fieldIssuesFromZod(r.error, raw, ["params"]).map((i) =>
    i.type === "extra_forbidden"
      ? { ...i, message: `Unknown parameter for a ${type.name} model; its parameters are: ${known}`, ctx: { expected: known } }
      : i,
  );
  throw new InvalidInput(issues);
}
