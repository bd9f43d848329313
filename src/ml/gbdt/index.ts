export type { GbdtModel } from "./model";
export { predict, predictRaw } from "./predict";
