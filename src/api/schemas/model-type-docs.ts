/**
 * The sentences of the API document that speak of every model type, built from the registry
 * (../../model-types/registry): each joins the types' own parts (their `docs`) in registry order,
 * so a new type appears in the document with its module.
 */
import { type ModelTypeRegistry, modelTypes } from "../../model-types/registry";
import { joinedList } from "./value-list";

/** The train request's `params`. */
export function paramsDescription(registry: ModelTypeRegistry = modelTypes): string {
  return `Model-type parameters (unknown keys are refused). ${registry.modules.map((m) => m.docs.params).join(". ")}`;
}

/** The train request's `label_column`. */
export function labelColumnDescription(registry: ModelTypeRegistry = modelTypes): string {
  const labelled = registry.modules.filter((m) => m.request.label).map((m) => m.name);
  return `Target column; ${joinedList(labelled, "and")} models (ignored by the other types)`;
}

/** A model's `label_column`, shown for the types whose label is a target. */
export function shownLabelDescription(registry: ModelTypeRegistry = modelTypes): string {
  return `Target column; present for ${joinedList(registry.targetLabelled, "and")} models only`;
}

/** A version's `metrics`. */
export function metricsDescription(registry: ModelTypeRegistry = modelTypes): string {
  const parts = registry.modules.flatMap((m) => (m.docs.metrics ? [m.docs.metrics] : []));
  return `Validation metrics, empty until training succeeded. ${parts.join("; ")}. Other types have no metrics (\`{}\`). A value is null when the metric is undefined for the data`;
}

/** A version's `summary`. */
export function summaryDescription(registry: ModelTypeRegistry = modelTypes): string {
  const without = registry.modules.filter((m) => !m.docs.summary).map((m) => m.name);
  const parts = registry.modules.flatMap((m) => (m.docs.summary ? [m.docs.summary] : []));
  return `What the trained version shows about itself, by type (null for ${joinedList(without, "and")} models and until training succeeded): ${parts.join("; ")}`;
}

/** The `data` of a synchronous inference answer. */
export function answerColumnsDescription(registry: ModelTypeRegistry = modelTypes): string {
  return [
    "Column name → one value per input row, in column order; missing values are null. Every model type starts with `id` (the input's `id` column, else its first column)",
    ...registry.modules.map((m) => m.docs.columns),
    "In csv and parquet output a list is written as its JSON text",
  ].join(". ");
}

/** The explain route's summary. */
export function explainSummary(registry: ModelTypeRegistry = modelTypes): string {
  return `Explain rows of a succeeded inference job (sync, async or batch; ${joinedList(registry.explainable, "and")} models): 202 with an infer_explain job whose detail carries \`explanations\` once it has succeeded`;
}
