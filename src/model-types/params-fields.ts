/** Parameter fields several types share. */
import { z } from "zod";

/** The model's random seed: every type takes one (default 0: the same data trains the same model). */
export const seed = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1)
  .optional();
