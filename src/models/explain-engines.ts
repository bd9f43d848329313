/**
 * Which engine explains a model version's rows, and the file it walks (stored next to the graph
 * at training): prediction -> gbdt.json (TreeSHAP, flip search); causal -> gbdt.json (the effect
 * models); anomaly -> iforest.json (TreeSHAP over the isolation trees, onto the anomaly score);
 * clustering -> kmeans.json (the margin between the row's cluster and the nearest other one).
 * A version trained before its type stored that file cannot be explained: the job fails with a
 * message that says to retrain.
 */
import type { ModelArtifact } from "../inference/artifact";
import { JobInputError } from "../jobs/errors";
import { type CausalExplainSpec, explainEffects } from "../ml/causal/explain";
import { readAnomalyExplainer } from "../ml/explain/anomaly-file";
import { readClusteringExplainer } from "../ml/explain/clustering-file";
import { explainAnomalies } from "../ml/explain/explain-anomaly";
import { explainClusters } from "../ml/explain/explain-clustering";
import { type ColumnContribution, explainPrediction } from "../ml/explain/explain-prediction";
import type { Frame } from "../ml/frame";
import type { GbdtModel } from "../ml/gbdt/model";
import { ARTIFACT_FILES } from "../storage/keys";
import { EXPLAINABLE_MODEL_TYPES } from "./explain";

/** One explanation per row: every engine's rows carry per-column contributions, and their own fields besides. */
export type RowExplainer = (frame: Frame, rows: number[]) => { feature_contributions: ColumnContribution[] }[];

const RETRAIN = "This model version was trained before explanations were stored with models; retrain it to explain its predictions.";

/** The version's explainer, its file read from R2 (the engine then runs without I/O). */
export async function loadExplainer(bucket: R2Bucket, artifactKey: string, artifact: ModelArtifact): Promise<RowExplainer> {
  const file = async (name: string): Promise<unknown> => {
    const obj = await bucket.get(artifactKey + name);
    if (!obj) throw new JobInputError(RETRAIN);
    return obj.json();
  };
  if (artifact.model_type === "prediction") {
    const model = (await file(ARTIFACT_FILES.gbdt)) as GbdtModel;
    const spec = { featurizer: artifact.featurizer, task: artifact.task, classes: artifact.classes, labelColumn: artifact.label_column };
    return (frame, rows) => explainPrediction(model, spec, frame, rows);
  }
  const { featurizer, head } = artifact;
  const F = featurizer.features.length;
  switch (artifact.model_type) {
    case "causal": {
      const models = (await file(ARTIFACT_FILES.gbdt)) as GbdtModel[];
      const spec = { featurizer, ...(head as unknown as Omit<CausalExplainSpec, "featurizer">) };
      return (frame, rows) => explainEffects(models, spec, frame, rows);
    }
    case "anomaly": {
      const ex = readAnomalyExplainer(await file(ARTIFACT_FILES.iforest), F);
      if (!ex) throw new JobInputError(RETRAIN);
      return (frame, rows) => explainAnomalies(ex, featurizer, frame, rows);
    }
    case "clustering": {
      const ex = readClusteringExplainer(await file(ARTIFACT_FILES.kmeans), F);
      if (!ex) throw new JobInputError(RETRAIN);
      const described = Array.isArray(head.clusters) ? (head.clusters as { id: number; description: string }[]) : [];
      const descriptions = new Map(described.map((c) => [c.id, c.description]));
      return (frame, rows) => explainClusters(ex, featurizer, frame, rows, descriptions);
    }
    default:
      throw new JobInputError(`Explanations exist for ${EXPLAINABLE_MODEL_TYPES.join(", ")} models; this is a ${artifact.model_type} model.`);
  }
}
