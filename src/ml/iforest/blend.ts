/**
 * The "blended" anomaly score: the isolation forest's score and the encoder's reconstruction
 * error, each put on a robust z scale learned from the training rows, averaged, and mapped to
 * (0, 1) by the logistic function:
 *   z_f = (s - median(s)) / σ(s),   z_r = (ln(r + ε) - median(ln(r + ε))) / σ(ln(r + ε)),
 *   blended = 1 / (1 + exp(-(z_f + z_r) / 2)).
 * σ = 1.4826 · MAD (mean absolute deviation · 1.2533 when the MAD is 0, 1 when that is 0 too).
 * Why these choices: the two signals live on unrelated scales (a bounded score, an unbounded
 * squared error), so each is measured in its own typical spread; the log tames the error's long
 * right tail the way the forest's score saturates near 1, so neither signal alone decides the
 * blend; the logistic keeps the promise of a score in [0, 1] that is higher for more anomalous
 * rows (0.5 = a row typical on both). Every step is elementwise, so ONNX reproduces it exactly.
 * The threshold rule is applied to u = (z_f + z_r) / 2, before the logistic, which saturates:
 * is_anomaly compares u with the cut, and the reported threshold is logistic(cut).
 */
import type { GraphBuilder } from "../onnx/graph";
import { robustCenterScale } from "./robust";

/** Keeps ln finite for rows with nothing to reconstruct (error 0). */
export const LOG_EPS = 1e-9;

export interface BlendParams {
  forestMedian: number;
  forestScale: number;
  errorLogMedian: number;
  errorLogScale: number;
}

/** Learns the two robust standardizations from the training rows' forest scores and errors. */
export function fitBlend(forestScores: Float64Array, errors: Float64Array): BlendParams {
  const f = robustCenterScale(forestScores);
  const e = robustCenterScale(errors.map((r) => Math.log(r + LOG_EPS)));
  // a constant signal (scale 0) then only shifts the blend: any positive scale does
  return { forestMedian: f.center, forestScale: f.scale || 1, errorLogMedian: e.center, errorLogScale: e.scale || 1 };
}

/** The blend before the logistic, u = (z_f + z_r) / 2 (where the threshold rule is applied). */
export function blendLogits(p: BlendParams, s: Float64Array, r: Float64Array): Float64Array {
  const out = new Float64Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const zf = (s[i] - p.forestMedian) / p.forestScale;
    const zr = (Math.log(r[i] + LOG_EPS) - p.errorLogMedian) / p.errorLogScale;
    out[i] = (zf + zr) / 2;
  }
  return out;
}

/** The blended score 1 / (1 + e^(-u)). */
export function logistic(u: number): number {
  return 1 / (1 + Math.exp(-u));
}

/** The same arithmetic on double [N] values `s` and `r`: the double [N] logit u and blended score. */
export function addBlendStage(g: GraphBuilder, p: BlendParams, s: string, r: string): { logit: string; score: string } {
  const zf = g.op("Div", [g.op("Sub", [s, g.double([p.forestMedian], [])]), g.double([p.forestScale], [])]);
  const logR = g.op("Log", [g.op("Add", [r, g.double([LOG_EPS], [])])]);
  const zr = g.op("Div", [g.op("Sub", [logR, g.double([p.errorLogMedian], [])]), g.double([p.errorLogScale], [])]);
  const logit = g.op("Div", [g.op("Add", [zf, zr]), g.double([2], [])], [], { prefix: "blend_logit" });
  return { logit, score: g.op("Sigmoid", [logit], [], { prefix: "blended_score" }) };
}
