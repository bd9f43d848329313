/**
 * Which engine explains a model version's rows: its model type's (../model-types, `explain`),
 * with the files it walks read from R2 next to the graph (the engine then runs without I/O). A
 * type that stores none has no explanations; a version trained before its type stored its file
 * cannot be explained: the job fails with a message that says to retrain.
 */

import { JobInputError } from "../jobs/errors";
import type { ModelArtifact } from "../model-types/artifact";
import type { RowExplainer } from "../model-types/contract";
import { type ModelTypeRegistry, modelTypes } from "../model-types/registry";

const RETRAIN = "This model version was trained before explanations were stored with models; retrain it to explain its predictions.";

/** The version's explainer, its files read from R2. */
export async function loadExplainer(
  bucket: R2Bucket,
  artifactKey: string,
  artifact: ModelArtifact,
  registry: ModelTypeRegistry = modelTypes,
): Promise<RowExplainer> {
  const explain = registry.find(artifact.model_type)?.explain;
  if (!explain) {
    throw new JobInputError(`Explanations exist for ${registry.explainable.join(", ")} models; this is a ${artifact.model_type} model.`);
  }
  const explainer = await explain.load(artifact, async (name) => {
    const obj = await bucket.get(artifactKey + name);
    return obj ? obj.json() : null;
  });
  if (!explainer) throw new JobInputError(RETRAIN);
  return explainer;
}
