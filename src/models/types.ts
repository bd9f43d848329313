/** The model types of the interface (every one can be trained). */
export const MODEL_TYPES = ["prediction", "anomaly", "embedding", "clustering", "factors", "search", "causal"] as const;
export type ModelType = (typeof MODEL_TYPES)[number];
