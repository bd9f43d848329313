/**
 * The `anomaly` model type: an isolation forest (or the forest blended with the shared encoder's
 * reconstruction error) scores each row; rows above the learned threshold are anomalies. Its
 * answer is `anomaly_score` and `is_anomaly`; TreeSHAP over the isolation trees explains a row
 * (iforest.json).
 */
import { z } from "zod";
import { InvalidInput } from "../core/errors";
import { readAnomalyExplainer } from "../ml/explain/anomaly-file";
import { explainAnomalies } from "../ml/explain/explain-anomaly";
import type { Frame } from "../ml/frame";
import { DEFAULT_ANOMALY_PARAMS, MAX_TREE_ROWS, trainAnomalySteps } from "../ml/unsupervised/anomaly";
import { ARTIFACT_FILES } from "../storage/keys";
import { columnTypesOf, outputColumn, round7 } from "./answer-columns";
import type { UnsupervisedArtifact } from "./artifact";
import { checkInputColumnsExist } from "./columns-check";
import type { ModelTypeModule, ResultTable } from "./contract";
import { type EngineFit, fitOnRepresentation } from "./fit-on-representation";
import { seed } from "./params-fields";

const params = z
  .object({
    n_estimators: z.number().int().min(1).max(1000).optional(),
    max_samples: z.number().int().min(2).max(65_536).optional(),
    contamination: z.number().gt(0).lte(0.5).optional(),
    method: z.enum(["isolation_forest", "blended"]).optional(),
    seed,
  })
  .strict();

const defaults = DEFAULT_ANOMALY_PARAMS;

export const anomaly: ModelTypeModule<UnsupervisedArtifact, "anomaly"> = {
  name: "anomaly",
  params: { schema: params, defaults },
  request: {
    label: null,
    check(profile, rowCount, req) {
      checkInputColumnsExist(profile, req.input_columns);
      const trees = Number(req.params.n_estimators ?? defaults.n_estimators);
      const sample = Math.min(Number(req.params.max_samples ?? defaults.max_samples), rowCount);
      if (trees * sample > MAX_TREE_ROWS) {
        throw InvalidInput.field(
          ["params"],
          `n_estimators × max_samples (capped at the ${rowCount} rows) is ${trees * sample}; at most ${MAX_TREE_ROWS} keeps the forest a size the Worker can serve`,
          req.params,
        );
      }
    },
  },
  training: fitOnRepresentation(trainAnomalySteps as EngineFit, (p) => p.method === "blended"),
  answer: {
    valuesPerRow: () => 3,
    chunked: true,
    table(_a, { ids, outputs }): ResultTable {
      const n = ids.length;
      return {
        id: ids,
        anomaly_score: outputColumn(outputs.anomaly_score, n).map(round7),
        is_anomaly: outputColumn(outputs.is_anomaly, n).map((x) => x !== 0),
      };
    },
    columnTypes: (_a, table) => columnTypesOf(table, { is_anomaly: "boolean" }),
  },
  explain: {
    async load(a, file) {
      const explainer = readAnomalyExplainer(await file(ARTIFACT_FILES.iforest), a.featurizer.features.length);
      if (!explainer) return null;
      return (frame: Frame, rows: number[]) => explainAnomalies(explainer, a.featurizer, frame, rows);
    },
  },
  docs: {
    params:
      "Anomaly: n_estimators (200), max_samples (256), contamination (0 to 0.5; default a threshold learned from the training scores), method (isolation_forest | blended), seed",
    columns: "Anomaly: `anomaly_score` (0 to 1, higher is more anomalous), `is_anomaly`",
    metrics: null,
    summary: "anomaly `threshold`, its rule and the score distribution",
  },
};
