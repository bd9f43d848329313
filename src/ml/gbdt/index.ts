export type { FeatureBins } from "./bins";
export type { GbdtModel, Objective, Tree } from "./model";
export { predict, predictRaw } from "./predict";
export type { GbdtParams, IterationInfo, StopReason, TrainGbdtInput, TrainGbdtResult } from "./train";
