/**
 * The `factors` model type: principal components of the standardized features (optionally
 * varimax-rotated), k chosen by explained variance unless given. Its answer is `factor_1` …
 * `factor_k` per row.
 */
import { z } from "zod";
import { InvalidInput } from "../core/errors";
import type { ColumnProfile } from "../ml/profile";
import { trainFactorsSteps } from "../ml/unsupervised/factors";
import { columnTypesOf, outputRows } from "./answer-columns";
import type { UnsupervisedArtifact } from "./artifact";
import { checkInputColumnsExist } from "./columns-check";
import type { ModelTypeModule, ResultTable } from "./contract";
import { type EngineFit, fitOnRepresentation } from "./fit-on-representation";
import { seed } from "./params-fields";

const params = z
  .object({
    n_components: z.number().int().min(1).max(100).optional(),
    rotation: z.enum(["none", "varimax"]).optional(),
    seed,
  })
  .strict();

/** Column kinds no model uses as a feature (the featurizer drops them). */
const UNUSED_KINDS = new Set(["id", "text"]);
/** Most one-hot columns a categorical feature takes in the standardized space (16 levels + other). */
const MAX_SLOTS_PER_CATEGORY = 17;
/** A datetime column becomes at most this many parts. */
const DATETIME_PARTS = 6;

/** An upper bound of the standardized features the request's columns give. */
function standardizedFeatureBound(profile: ColumnProfile[], inputColumns: string[] | null): { bound: number; usable: number } {
  const inputs = inputColumns ? new Set(inputColumns) : null;
  const used = profile.filter((c) => !UNUSED_KINDS.has(c.type) && (!inputs || inputs.has(c.name)));
  const bound = used.reduce(
    (n, c) => n + (c.type === "categorical" ? Math.min(c.distinct_count, MAX_SLOTS_PER_CATEGORY) : c.type === "datetime" ? DATETIME_PARTS : 1),
    0,
  );
  return { bound, usable: used.length };
}

export const factors: ModelTypeModule<UnsupervisedArtifact, "factors"> = {
  name: "factors",
  params: { schema: params, defaults: { rotation: "none", seed: 0 } },
  request: {
    label: null,
    check(profile, _rowCount, req) {
      checkInputColumnsExist(profile, req.input_columns);
      const nComponents = req.params.n_components;
      if (typeof nComponents !== "number") return;
      const { bound, usable } = standardizedFeatureBound(profile, req.input_columns);
      if (nComponents > bound) {
        throw InvalidInput.field(
          ["params", "n_components"],
          `n_components is ${nComponents}, but the data has at most ${bound} standardized features (${usable} usable columns)`,
          nComponents,
        );
      }
    },
  },
  training: fitOnRepresentation(trainFactorsSteps as EngineFit),
  answer: {
    valuesPerRow: (a) => 1 + Number(a.head.n_components),
    chunked: true,
    table(a, { ids, outputs }): ResultTable {
      const k = Number(a.head.n_components);
      const rows = outputRows(outputs.factors, ids.length);
      const table: ResultTable = { id: ids };
      for (let j = 0; j < k; j++) table[`factor_${j + 1}`] = rows.map((r) => r[j]);
      return table;
    },
    columnTypes: (_a, table) => columnTypesOf(table),
  },
  explain: null,
  docs: {
    params: "Factors: n_components (default: fewest reaching 90% explained variance, at most 10), rotation (none | varimax), seed",
    columns: "Factors: `factor_1` … `factor_k`",
    metrics: null,
    summary: "factors explained variance per factor, loadings and the top features of each factor with their signs",
  },
};
