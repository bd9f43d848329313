/**
 * A large encoded frame is stored as an R2 multipart upload: no single request carries gigabytes,
 * and a part that fails on the network is sent again alone. R2 wants every part but the last of
 * one size, at least 5 MiB; 64 MiB keeps a 2 GB frame at 32 parts and one part's copy small.
 */
export const FRAME_PART_BYTES = 64 * 1024 * 1024;

/** R2's limit on the parts of one upload. */
export const MAX_FRAME_PARTS = 10_000;

/** How many parts `byteLength` bytes make (at least one: an empty frame is one empty part). */
export const framePartCount = (byteLength: number, partSize = FRAME_PART_BYTES) => Math.max(1, Math.ceil(byteLength / partSize));

/** How many bytes part `index` (from 0) of `byteLength` bytes holds: partSize, the last one the rest. */
export const framePartLength = (byteLength: number, index: number, partSize = FRAME_PART_BYTES) =>
  Math.max(0, Math.min(byteLength, (index + 1) * partSize) - index * partSize);

/**
 * Part `index` (from 0) of the bytes that `chunks` concatenate to, as its own buffer: bytes
 * [index * partSize, (index + 1) * partSize) cut across chunk boundaries. Copies one part only, so
 * a frame held as views of its columns is sent without a second copy of the whole.
 */
export function framePart(chunks: readonly Uint8Array[], byteLength: number, index: number, partSize = FRAME_PART_BYTES): Uint8Array {
  const start = index * partSize;
  const out = new Uint8Array(framePartLength(byteLength, index, partSize));
  const end = start + out.length;
  let chunkStart = 0;
  for (const c of chunks) {
    const chunkEnd = chunkStart + c.byteLength;
    if (chunkEnd > start && chunkStart < end) {
      const from = Math.max(start, chunkStart);
      const to = Math.min(end, chunkEnd);
      out.set(c.subarray(from - chunkStart, to - chunkStart), from - start);
    }
    if (chunkEnd >= end) break;
    chunkStart = chunkEnd;
  }
  return out;
}
