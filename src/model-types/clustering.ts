/**
 * The `clustering` model type: k-means over the standardized features (or the embedding), k
 * chosen by silhouette unless given. Its answer is `cluster` and the cluster's description; the
 * margin between a row's cluster and the nearest other one explains it (kmeans.json).
 */
import { z } from "zod";
import { InvalidInput } from "../core/errors";
import { readClusteringExplainer } from "../ml/explain/clustering-file";
import { explainClusters } from "../ml/explain/explain-clustering";
import type { Frame } from "../ml/frame";
import { DEFAULT_CLUSTERING_PARAMS, trainClusteringSteps } from "../ml/unsupervised/clustering";
import { ARTIFACT_FILES } from "../storage/keys";
import { columnTypesOf, outputColumn } from "./answer-columns";
import type { UnsupervisedArtifact } from "./artifact";
import { checkInputColumnsExist } from "./columns-check";
import type { ModelTypeModule, ResultTable } from "./contract";
import { type EngineFit, fitOnRepresentation } from "./fit-on-representation";
import { seed } from "./params-fields";

const params = z
  .object({
    n_clusters: z.number().int().min(2).max(100).optional(),
    space: z.enum(["features", "embedding"]).optional(),
    n_init: z.number().int().min(1).max(100).optional(),
    max_iter: z.number().int().min(1).max(10_000).optional(),
    seed,
  })
  .strict();

/** Cluster id → its description, as training wrote them into the head. */
function descriptionsOf(a: UnsupervisedArtifact): Map<number, string> {
  const described = Array.isArray(a.head.clusters) ? (a.head.clusters as { id: number; description: string }[]) : [];
  return new Map(described.map((c) => [c.id, c.description]));
}

export const clustering: ModelTypeModule<UnsupervisedArtifact, "clustering"> = {
  name: "clustering",
  params: { schema: params, defaults: DEFAULT_CLUSTERING_PARAMS },
  request: {
    label: null,
    check(profile, rowCount, req) {
      checkInputColumnsExist(profile, req.input_columns);
      const nClusters = req.params.n_clusters;
      if (typeof nClusters === "number" && nClusters > rowCount) {
        throw InvalidInput.field(
          ["params", "n_clusters"],
          `n_clusters is ${nClusters}, but the dataset version has only ${rowCount} rows`,
          nClusters,
        );
      }
    },
  },
  training: fitOnRepresentation(trainClusteringSteps as EngineFit, (p) => p.space === "embedding"),
  answer: {
    valuesPerRow: () => 3,
    chunked: true,
    table(a, { ids, outputs }): ResultTable {
      const descriptions = descriptionsOf(a);
      const clusters = outputColumn(outputs.cluster, ids.length);
      return { id: ids, cluster: clusters, cluster_description: clusters.map((k) => descriptions.get(k) ?? null) };
    },
    columnTypes: (_a, table) => columnTypesOf(table, { cluster: "int64", cluster_description: "string" }),
  },
  explain: {
    async load(a, file) {
      const explainer = readClusteringExplainer(await file(ARTIFACT_FILES.kmeans), a.featurizer.features.length);
      if (!explainer) return null;
      const descriptions = descriptionsOf(a);
      return (frame: Frame, rows: number[]) => explainClusters(explainer, a.featurizer, frame, rows, descriptions);
    },
  },
  docs: {
    params: "Clustering: n_clusters (2 to the row count; default chosen by silhouette over 2..10), space (features | embedding), seed",
    columns: "Clustering: `cluster` (0-based), `cluster_description`",
    metrics: "clustering: `n_clusters`, `silhouette_score` (-1 to 1)",
    summary: "clustering per-cluster `size`, `description` and centroid, how k was chosen",
  },
};
