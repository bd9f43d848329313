/**
 * The `search` model type: the training rows indexed (exact or IVF, chosen by size and measured
 * recall) in the embedding or the standardized feature space; the graph turns query rows into
 * vectors and the index (index.bin) answers each row's `neighbor_ids` and `distances`.
 */
import { z } from "zod";
import { SEARCH_MAX_QUERY_ROWS } from "../core/limits";
import { DEFAULT_SEARCH_PARAMS, parseSearchIndex, searchIndex, trainSearchSteps } from "../ml/unsupervised/search";
import { ARTIFACT_FILES } from "../storage/keys";
import { columnTypesOf, round7 } from "./answer-columns";
import type { UnsupervisedArtifact } from "./artifact";
import { checkInputColumnsExist } from "./columns-check";
import type { ModelTypeModule, ResultTable } from "./contract";
import { type EngineFit, fitOnRepresentation } from "./fit-on-representation";
import { seed } from "./params-fields";

const params = z
  .object({
    k: z.number().int().min(1).max(100).optional(),
    space: z.enum(["auto", "embedding", "features"]).optional(),
    index: z.enum(["auto", "exact", "ivf"]).optional(),
    seed,
  })
  .strict();

export const search: ModelTypeModule<UnsupervisedArtifact, "search"> = {
  name: "search",
  params: { schema: params, defaults: DEFAULT_SEARCH_PARAMS },
  request: {
    label: null,
    check: (profile, _rowCount, req) => checkInputColumnsExist(profile, req.input_columns),
  },
  training: fitOnRepresentation(trainSearchSteps as EngineFit, (p) => p.space !== "features"),
  answer: {
    valuesPerRow: (a) => 1 + 2 * Number(a.head.k),
    // each query row is a search of the index: bounded so a call stays within a Worker's CPU time
    maxRowsPerCall: SEARCH_MAX_QUERY_ROWS,
    chunked: true,
    async table(a, { ids, outputs, file }): Promise<ResultTable> {
      const n = ids.length;
      const vectors = outputs.vectors;
      if (n === 0 || !vectors) return { id: ids, neighbor_ids: [], distances: [] };
      const found = searchIndex(await file(ARTIFACT_FILES.index, parseSearchIndex), vectors.data, n, Number(a.head.k));
      return { id: ids, neighbor_ids: found.ids, distances: found.distances.map((d) => d.map(round7)) };
    },
    columnTypes: (_a, table) => columnTypesOf(table, { neighbor_ids: "string", distances: "string" }),
  },
  explain: null,
  docs: {
    params: "Search: k (1 to 100, default 10), space (auto: chosen by neighbour score, embedding | features), index (auto | exact | ivf), seed",
    columns: "Search: `neighbor_ids` (ids of the training rows, nearest first), `distances`",
    metrics: null,
    summary:
      "search the index kind, rows, dimensions and measured recall, the space and (`auto`) `space_choice`: each space's neighbour score and the rule",
  },
};
