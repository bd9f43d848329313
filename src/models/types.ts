/** The model types of the interface, and those this version of the service can train. */
export const MODEL_TYPES = ["prediction", "anomaly", "embedding", "clustering", "factors", "search", "causal"] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

/** The others answer 422 at request time, naming these. */
export const TRAINABLE_MODEL_TYPES: readonly ModelType[] = ["prediction", "anomaly", "embedding", "clustering", "factors", "search"];
