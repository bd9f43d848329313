import type { Frame } from "../../src/ml/frame";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";

/**
 * The representation a causal model is trained on in these tests: without the encoder, which the
 * causal learner never reads (its featurizer and bins only) and which is most of the build's time
 * on small tables. test/ml/causal.test.ts checks that the model is the same with it.
 */
export const causalRepresentation = (frame: Frame): Representation => buildRepresentation(frame, { encoder: false });
