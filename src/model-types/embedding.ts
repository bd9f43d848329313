/**
 * The `embedding` model type: each row as a vector of `dimensions` numbers, from the shared
 * self-supervised encoder (or one trained for this model when it asks for other dimensions or
 * leaves out columns the shared encoder reads). Its answer is `embedding`, a list per row.
 */
import { z } from "zod";
import { SSL_EMBEDDING } from "../ml/ssl/encoder";
import { trainEmbeddingSteps } from "../ml/unsupervised/embedding";
import { columnTypesOf, outputRows } from "./answer-columns";
import type { UnsupervisedArtifact } from "./artifact";
import { checkInputColumnsExist } from "./columns-check";
import type { ModelTypeModule } from "./contract";
import { type EngineFit, fitOnRepresentation } from "./fit-on-representation";
import { seed } from "./params-fields";

const params = z
  .object({
    dimensions: z.number().int().min(2).max(256).optional(),
    seed,
  })
  .strict();

export const embedding: ModelTypeModule<UnsupervisedArtifact, "embedding"> = {
  name: "embedding",
  params: { schema: params, defaults: { dimensions: SSL_EMBEDDING, seed: 0 } },
  request: {
    label: null,
    check: (profile, _rowCount, req) => checkInputColumnsExist(profile, req.input_columns),
  },
  training: fitOnRepresentation(trainEmbeddingSteps as EngineFit, (p) => p.dimensions === undefined || p.dimensions === SSL_EMBEDDING),
  answer: {
    valuesPerRow: (a) => 1 + Number(a.head.dimensions),
    chunked: true,
    table: (_a, { ids, outputs }) => ({ id: ids, embedding: outputRows(outputs.embedding, ids.length) }),
    columnTypes: (_a, table) => columnTypesOf(table, { embedding: "string" }),
  },
  explain: null,
  docs: {
    params: "Embedding: dimensions (16), seed",
    columns: "Embedding: `embedding` (a list of numbers per row)",
    metrics: null,
    summary: "embedding `dimensions` and whether the shared encoder is used",
  },
};
