/**
 * Data of the clustering benchmark: labelled Gaussian blobs (fixed seeds) and real labelled
 * tables (/work/shared/bench-data), each turned into the two spaces the model clusters in
 * (standardized features, shared-encoder embedding) exactly as the model does.
 */
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Column, Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { embed, standardize, standardSpace } from "../../src/ml/space/space";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";

export interface Matrix {
  X: Float64Array;
  rows: number;
  cols: number;
}

/**
 * n rows of k blobs in d dimensions, like scikit-learn's make_blobs: centers uniform in
 * [-box, box]^d, isotropic Gaussian noise of standard deviation `std`, equal sizes (row i in blob i mod k).
 */
export function blobs(n: number, d: number, k: number, std: number, seed: number, box = 10): Matrix & { y: Int32Array } {
  const rng = new Rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rng.next() || 1e-300)) * Math.cos(2 * Math.PI * rng.next());
  const centers = Float64Array.from({ length: k * d }, () => (rng.next() * 2 - 1) * box);
  const X = new Float64Array(n * d);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = (y[i] = i % k);
    for (let t = 0; t < d; t++) X[i * d + t] = centers[c * d + t] + gauss() * std;
  }
  return { X, rows: n, cols: d, y };
}

/** A matrix as a frame of numeric columns x0, x1, ... */
export function matrixFrame(m: Matrix): Frame {
  const columns: Column[] = Array.from({ length: m.cols }, (_, t) => ({
    name: `x${t}`,
    kind: "numeric",
    storage: "numeric",
    values: Float64Array.from({ length: m.rows }, (_, i) => m.X[i * m.cols + t]),
  }));
  return { rowCount: m.rows, columns };
}

export interface Spaces {
  features: Matrix;
  embedding: Matrix;
  rep: Representation;
  frame: Frame;
}

/** Both spaces of a frame (its representation built as the service builds it). */
export function spacesOf(frame: Frame): Spaces {
  const rep = buildRepresentation(frame, { seed: 0 });
  const space = standardSpace(rep);
  const m = applyFeaturizer(space.featurizer, frame);
  const E = rep.encoder!.embedding;
  return {
    features: { X: standardize(space, m), rows: m.numRows, cols: space.D },
    embedding: { X: embed(rep.encoder!, m), rows: m.numRows, cols: E },
    rep,
    frame,
  };
}

/** A real classification table without its label column, and the label's codes (the truth). */
export function labelledTable(name: string): { frame: Frame; y: Int32Array; classes: number } {
  const ds = loadBenchDataset(name);
  const label = ds.frame.columns.find((c) => c.name === ds.target)!;
  if (label.storage !== "dictionary") throw new Error(`${name}: label ${ds.target} is not categorical`);
  const frame: Frame = { rowCount: ds.frame.rowCount, columns: ds.frame.columns.filter((c) => c !== label) };
  const y = Int32Array.from(label.codes);
  return { frame, y, classes: new Set(y).size };
}
