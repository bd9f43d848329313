/**
 * The `search` model: the k nearest training rows of each query row (Euclidean distance), in the
 * embedding (the shared encoder's, or one trained on input_columns) or in the standardized
 * features. `space: "auto"` (the default) takes whichever's neighbours better predict held-out
 * columns, the features unless the embedding is clearly ahead (../space/choose-space); the
 * summary's `space_choice` shows both scores.
 *
 * - Training embeds/standardizes every training row and builds the nearest-neighbour index over
 *   those vectors (../knn): "exact" while its file is at most EXACT_MAX_BYTES (32 MB: about 440k
 *   rows at 16 dimensions), else "ivf" (8-bit codes, a quarter of the memory, nprobe tuned for
 *   recall@10 ≥ TARGET_RECALL against exact search). Even when exact fits, "ivf" is taken on large
 *   tables where exact search could not prune (structureless data: it would be a brute force) and ivf reaches
 *   the target recall (../knn/build). An index over MAX_INDEX_BYTES (48 MB) would
 *   not fit beside everything else in a Worker's 128 MB and is refused.
 * - The index is the model's one extra file, `index.bin` (../knn/format).
 * - ONNX: features → embedding or standardize stage → `vectors` double [N, dims]: the query
 *   vectors only. The Worker parses index.bin once (parseSearchIndex) and answers with
 *   searchIndex(index, vectors, N, head.k): per query row `neighbor_ids` (the training rows' `id`
 *   values) and `distances`, ascending, ties in training row order.
 * The index stores float32 vectors, so a query equal to a training row is at ~1e-7, not 0.
 */
import { MlInputError } from "../errors";
import { applyFeaturizer } from "../featurize";
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../fit/contract";
import { type Frame, findColumn } from "../frame";
import { BUILD_STEPS, buildSearchIndexSteps, nlistFor } from "../knn/build";
import { idTableBytes, indexFileBytes, serializeSearchIndex } from "../knn/format";
import { idTableFromColumn } from "../knn/ids";
import type { SearchIndexKind } from "../knn/types";
import { GraphBuilder } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import { chooseSpace, type SpaceChoice } from "../space/choose-space";
import {
  addEmbeddingStage,
  addFeaturesInput,
  addStandardizeStage,
  embed,
  encoderFor,
  type StandardSpace,
  standardize,
  standardSpace,
} from "../space/space";
import type { SslEncoder } from "../ssl/encoder";

export { parseSearchIndex } from "../knn/format";
export { searchIndex } from "../knn/search";

const MB = 1024 * 1024;
/** "auto" builds an exact index while its file is at most this big. */
const EXACT_MAX_BYTES = 32 * MB;
/** No index bigger than this: the Worker holds it in memory beside the ONNX sessions and the request. */
const MAX_INDEX_BYTES = 48 * MB;
/** Recall@10 (against exact search) the ivf index's nprobe is tuned to reach. */
const TARGET_RECALL = 0.95;

/** The spaces a search index can be built in. */
type SearchSpace = "embedding" | "features";

export interface SearchParams {
  /** Neighbours per query row: integer 1..100, default 10 (all rows when fewer). */
  k?: number;
  /** "auto" (default: chosen by neighbour score), "embedding" or "features" (the standardized features). */
  space?: "auto" | SearchSpace;
  /** "auto" (default): exact up to EXACT_MAX_BYTES unless it cannot prune (then ivf), else ivf. */
  index?: "auto" | SearchIndexKind;
  /** Seed of the coarse k-means, the recall sample and (when one is trained) the encoder. */
  seed?: number;
}

export const DEFAULT_SEARCH_PARAMS: Required<SearchParams> = { k: 10, space: "auto", index: "auto", seed: 0 };

/** What the Worker needs besides the graph and index.bin. */
interface SearchHead {
  k: number;
  space: SearchSpace;
  index: SearchIndexKind;
  dims: number;
  rows: number;
}

export function* trainSearchSteps(frame: Frame, opts: UnsupervisedTrainOptions<SearchParams>): Generator<FitStep, UnsupervisedModel, void> {
  const p = { ...DEFAULT_SEARCH_PARAMS, ...definedOnly(opts.params) };
  if (!Number.isInteger(p.k) || p.k < 1 || p.k > 100) throw new MlInputError(`k must be an integer from 1 to 100, got ${p.k}`);
  if (!["auto", "embedding", "features"].includes(p.space)) throw new MlInputError(`space must be "auto", "embedding" or "features", got ${p.space}`);
  if (!["auto", "exact", "ivf"].includes(p.index)) throw new MlInputError(`index must be "auto", "exact" or "ivf", got ${p.index}`);
  const rep = opts.representation;
  const space = standardSpace(rep, opts.inputColumns);
  const m = applyFeaturizer(space.featurizer, frame);
  const rows = frame.rowCount;
  const idColumn = findColumn(frame, "id") ?? frame.columns[0];
  const ids = idTableFromColumn(idColumn, rows);
  const idBytes = idTableBytes(ids);
  // "auto" scores both spaces, so it needs the embedding's encoder (shared, or trained here) too
  const candidate = p.space === "features" ? null : yield* encoderFor(frame, rep, space, { seed: p.seed });
  // ...but not the features when their index could not be served: the embedding's is smaller
  const featuresFit = p.space === "auto" && indexFits(p.index, rows, space.D, idBytes);
  const choice = featuresFit ? chooseSpace(space, candidate!, m, p.seed) : null;
  const chosen: SearchSpace = p.space === "auto" ? (choice?.space ?? "embedding") : p.space;
  const encoder = chosen === "embedding" ? candidate : null;
  const vectors = encoder ? embed(encoder, m) : standardize(space, m);
  const dims = encoder ? encoder.embedding : space.D;
  const kind = chooseKind(p.index, rows, dims, idBytes);

  // an exact index that fits is still measured: "auto" takes ivf where exact search cannot prune
  const buildKind = p.index === "auto" && kind === "exact" ? "auto" : kind;
  const build = buildSearchIndexSteps(Float32Array.from(vectors), rows, dims, ids, {
    kind: buildKind,
    seed: p.seed,
    targetRecall: TARGET_RECALL,
    parallel: opts.parallel,
  });
  let step = 0;
  let r = build.next();
  while (!r.done) {
    yield { phase: "fit", step: ++step, totalSteps: BUILD_STEPS };
    r = build.next();
  }
  const index = r.value;
  const bytes = serializeSearchIndex(index);

  const head: SearchHead = { k: p.k, space: chosen, index: index.kind, dims, rows };
  const summary = {
    index: index.kind,
    space: chosen,
    ...(p.space === "auto" ? { space_choice: spaceChoiceSummary(choice) } : {}),
    k: p.k,
    rows,
    dims,
    nlist: index.nlist,
    nprobe: index.nprobe,
    recall_at_10: index.recall,
    index_bytes: bytes.length,
    features: space.featurizer.features.length,
    ...(encoder ? { encoder: encoder === rep.encoder ? "shared" : "trained for this model" } : {}),
  };
  return {
    modelType: "search",
    featurizer: space.featurizer,
    onnx: exportSearchOnnx(space, encoder, dims),
    head: { ...head },
    metrics: {},
    output: summary,
    summary,
    files: [{ name: "index.bin", bytes }],
  };
}

/**
 * The index kind for "auto" (exact while it fits EXACT_MAX_BYTES); MlInputError when the chosen one is too big.
 * @internal exported for its unit test (test/ml/search.test.ts)
 */
export function chooseKind(requested: SearchParams["index"], rows: number, dims: number, idBytes: number): SearchIndexKind {
  const nlist = nlistFor(rows);
  const size = (k: SearchIndexKind) => indexFileBytes(k, rows, dims, nlist, idBytes);
  const kind: SearchIndexKind = requested === "exact" || requested === "ivf" ? requested : size("exact") <= EXACT_MAX_BYTES ? "exact" : "ivf";
  if (size(kind) > MAX_INDEX_BYTES) {
    const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;
    const hint =
      kind === "exact" && size("ivf") <= MAX_INDEX_BYTES ? 'use index "ivf" (8-bit vectors)' : 'use space "embedding" or fewer input_columns';
    throw new MlInputError(
      `a ${kind} search index over ${rows} rows × ${dims} dimensions needs ${mb(size(kind))}, more than the ${mb(MAX_INDEX_BYTES)} a model can serve; ${hint}`,
    );
  }
  return kind;
}

/** Why "auto" took the space it did, as the summary shows it (null choice: the features' index would not fit). */
function spaceChoiceSummary(c: SpaceChoice | null) {
  if (!c) return { chosen: "embedding", rule: "the standardized features' index would be too big to serve" };
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    chosen: c.space,
    // what each space's k nearest neighbours score predicting held-out columns (R² per row or accuracy)
    neighbour_scores: { embedding: r4(c.scores.embedding), features: r4(c.scores.features) },
    standard_error: r4(c.standardError),
    rule: c.rule,
    held_out_columns: c.columns,
    query_rows: c.queryRows,
    pool_rows: c.poolRows,
    k: c.k,
  };
}

/** Whether chooseKind accepts an index of this size. */
function indexFits(requested: SearchParams["index"], rows: number, dims: number, idBytes: number): boolean {
  try {
    chooseKind(requested, rows, dims, idBytes);
    return true;
  } catch (e) {
    if (e instanceof MlInputError) return false;
    throw e;
  }
}

/** features → embedding or standardized space → `vectors` double [N, dims]. */
function exportSearchOnnx(space: StandardSpace, encoder: SslEncoder | null, dims: number): Uint8Array {
  const g = new GraphBuilder();
  const x = addFeaturesInput(g, space.featurizer.features.length);
  const v = encoder ? addEmbeddingStage(g, encoder, x) : addStandardizeStage(g, space, x);
  g.output(v, "vectors", DataType.DOUBLE, ["N", dims], "query vectors; neighbours are looked up in index.bin");
  return g.finish({
    name: "search",
    docString: `query vectors of a nearest-neighbour search (${encoder ? "embedding" : "standardized features"}, ${dims} dimensions)`,
    metadata: { model_type: "search", space: encoder ? "embedding" : "features", dimensions: String(dims) },
  });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
