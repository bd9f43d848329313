/**
 * The `embedding` model: the dataset's self-supervised encoder served as a model. With the
 * shared representation's encoder (same features, same width) training costs nothing; with other
 * `dimensions`, or `input_columns` that leave out columns the shared encoder reads, the model
 * trains an encoder of its own (the `ssl` phase again, on its features only).
 *
 * ONNX: features → encoder layout → MatMul/Add/Relu layers → `embedding` double [N, dimensions].
 */
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../fit/contract";
import type { Frame } from "../frame";
import { GraphBuilder } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import { addEmbeddingStage, addFeaturesInput, encoderFor, standardSpace } from "../space/space";
import type { SslEncoder } from "../ssl/encoder";

export interface EmbeddingParams {
  /** Width of the vectors; default: the shared encoder's (16). */
  dimensions?: number;
  seed?: number;
}

interface EmbeddingHead {
  dimensions: number;
}

export function* trainEmbeddingSteps(frame: Frame, opts: UnsupervisedTrainOptions<EmbeddingParams>): Generator<FitStep, UnsupervisedModel, void> {
  const rep = opts.representation;
  const space = standardSpace(rep, opts.inputColumns);
  const encoder = yield* encoderFor(frame, rep, space, { dimensions: opts.params.dimensions, seed: opts.params.seed ?? 0 });
  const shared = encoder === rep.encoder;
  const head: EmbeddingHead = { dimensions: encoder.embedding };
  const summary = {
    dimensions: encoder.embedding,
    encoder: shared ? "shared" : "trained for this model",
    features: space.featurizer.features.length,
    reconstruction: {
      val_loss: encoder.training.valLoss,
      baseline_val_loss: encoder.training.valBaselineLoss,
      steps: encoder.training.steps,
    },
  };
  return {
    modelType: "embedding",
    featurizer: space.featurizer,
    onnx: exportEmbeddingOnnx(encoder, space.featurizer.features.length),
    head: { ...head },
    metrics: {},
    output: summary,
    summary,
  };
}

function exportEmbeddingOnnx(encoder: SslEncoder, numFeatures: number): Uint8Array {
  const g = new GraphBuilder();
  const x = addFeaturesInput(g, numFeatures);
  g.output(addEmbeddingStage(g, encoder, x), "embedding", DataType.DOUBLE, ["N", encoder.embedding], "one vector per row");
  return g.finish({
    name: "embedding",
    docString: `self-supervised encoder (${encoder.embedding} dimensions)`,
    metadata: { model_type: "embedding", dimensions: String(encoder.embedding) },
  });
}
