/**
 * Rows with equal key vectors (./flat: a row's rank or code per split word) reach the same leaf
 * in every tree, so the predictor scores each distinct vector once and copies its scores to the
 * others: exact, and on real tables often a large saving, because the keys are coarser than the
 * values (a model with a few hundred thresholds per feature maps many rows to one vector: the
 * shared shuttle test fold has 11,600 rows and 4,429 distinct vectors under the 100-round model,
 * fertility's 50,931 rows about 5,000).
 */

/**
 * Moves the distinct key vectors among the n rows of `keys` (stride bytes each, a multiple of 4)
 * to its front, in order of first occurrence, and returns their count; of[i] = the distinct
 * vector of row i.
 */
export function compactDistinct(keys: Uint8Array, n: number, stride: number, of: Int32Array): number {
  const W = stride >> 2;
  const words = new Int32Array(keys.buffer, keys.byteOffset, n * W);
  let size = 16;
  while (size < 2 * n) size *= 2;
  const slots = new Int32Array(size).fill(-1);
  const mask = size - 1;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const o = i * W;
    let h = 0x811c9dc5;
    for (let j = 0; j < W; j++) h = Math.imul(h ^ words[o + j], 0x9e3779b1);
    h ^= h >>> 15;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const u = slots[s];
      if (u < 0) {
        // new: copy to slot `count` (count <= i, and rows before i are already read)
        slots[s] = count;
        if (count !== i) for (let j = 0; j < W; j++) words[count * W + j] = words[o + j];
        of[i] = count++;
        break;
      }
      let j = 0;
      while (j < W && words[u * W + j] === words[o + j]) j++;
      if (j === W) {
        of[i] = u;
        break;
      }
    }
  }
  return count;
}
