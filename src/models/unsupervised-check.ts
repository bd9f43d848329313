import { InvalidInput } from "../core/errors";
import type { ColumnProfile } from "../ml/profile";
import { DEFAULT_ANOMALY_PARAMS, MAX_TREE_ROWS } from "../ml/unsupervised/anomaly";

/** Column kinds no model uses as a feature (the featurizer drops them). */
const UNUSED_KINDS = new Set(["id", "text"]);
/** Most one-hot columns a categorical feature takes in the standardized space (16 levels + other). */
const MAX_SLOTS_PER_CATEGORY = 17;
/** A datetime column becomes at most this many parts. */
const DATETIME_PARTS = 6;

/**
 * What can be known about a non-prediction model's request before training, from the dataset
 * version's column profile: input columns that exist, `n_clusters` within the rows,
 * `n_components` within an upper bound of the standardized features. The training job checks the
 * data itself again (constant columns, rows that are all alike). Paths name request fields.
 */
export function checkUnsupervisedColumns(
  profile: ColumnProfile[],
  rowCount: number,
  req: { input_columns?: string[]; params: Record<string, unknown> },
): void {
  const byName = new Map(profile.map((c) => [c.name, c]));
  if (req.input_columns) {
    const unknown = req.input_columns.filter((c) => !byName.has(c));
    if (unknown.length) {
      throw InvalidInput.field(
        ["input_columns"],
        `Columns not in the dataset: ${unknown.join(", ")}; its columns are: ${[...byName.keys()].join(", ")}`,
        unknown,
      );
    }
  }
  const nClusters = req.params.n_clusters;
  if (typeof nClusters === "number" && nClusters > rowCount) {
    throw InvalidInput.field(["params", "n_clusters"], `n_clusters is ${nClusters}, but the dataset version has only ${rowCount} rows`, nClusters);
  }
  const trees = Number(req.params.n_estimators ?? DEFAULT_ANOMALY_PARAMS.n_estimators);
  const sample = Math.min(Number(req.params.max_samples ?? DEFAULT_ANOMALY_PARAMS.max_samples), rowCount);
  if (trees * sample > MAX_TREE_ROWS) {
    throw InvalidInput.field(
      ["params"],
      `n_estimators × max_samples (capped at the ${rowCount} rows) is ${trees * sample}; at most ${MAX_TREE_ROWS} keeps the forest a size the Worker can serve`,
      req.params,
    );
  }
  const nComponents = req.params.n_components;
  if (typeof nComponents === "number") {
    const inputs = req.input_columns ? new Set(req.input_columns) : null;
    const used = profile.filter((c) => !UNUSED_KINDS.has(c.type) && (!inputs || inputs.has(c.name)));
    const bound = used.reduce(
      (n, c) => n + (c.type === "categorical" ? Math.min(c.distinct_count, MAX_SLOTS_PER_CATEGORY) : c.type === "datetime" ? DATETIME_PARTS : 1),
      0,
    );
    if (nComponents > bound) {
      throw InvalidInput.field(
        ["params", "n_components"],
        `n_components is ${nComponents}, but the data has at most ${bound} standardized features (${used.length} usable columns)`,
        nComponents,
      );
    }
  }
}
