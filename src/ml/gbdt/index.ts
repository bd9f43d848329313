export type { GbdtModel, Objective, Tree } from "./model";
export { applyBins, binCount, computeBins, MAX_VALUE_BINS, type FeatureBins } from "./bins";
export { predict, predictRaw } from "./predict";
export {
  DEFAULT_GBDT_PARAMS,
  trainGbdt,
  trainGbdtSteps,
  type GbdtParams,
  type IterationInfo,
  type StopReason,
  type TrainGbdtInput,
  type TrainGbdtResult,
} from "./train";
