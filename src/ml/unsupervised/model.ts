/**
 * The non-prediction model types the service trains. Only this list is left here (the contract
 * every type fulfils is ../fit/contract); it is the product's list rather than the engine's, and a
 * model-type registry outside ml is to replace it.
 */
export const UNSUPERVISED_MODEL_TYPES = ["anomaly", "embedding", "clustering", "factors", "search", "causal"] as const;
export type UnsupervisedModelType = (typeof UNSUPERVISED_MODEL_TYPES)[number];
