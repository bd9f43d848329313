/**
 * Snappy decompression for Parquet pages: hyparquet's snappyUncompress (itself snappyjs) with the
 * same checks, in the same order, and the same messages, so that a corrupt page fails alike; what
 * differs is the copying: a literal of more than 32 bytes (incompressible columns, such as random
 * doubles, are almost all literal) is one `set`, and the byte loops are inline instead of a call
 * per element. Used for every SNAPPY page unless the caller's compressors name another decoder.
 */
const WORD_MASK = [0, 0xff, 0xffff, 0xffffff, 0xffffffff];

/** As hyparquet's Compressors take it: the page's bytes and its uncompressed size. */
export function snappyPage(input: Uint8Array, size: number): Uint8Array {
  const output = new Uint8Array(size);
  snappyUncompress(input, output);
  return output;
}

/** Decompresses `input` into all of `output` (its length is the uncompressed size). */
export function snappyUncompress(input: Uint8Array, output: Uint8Array): void {
  const inputLength = input.byteLength;
  const outputLength = output.byteLength;
  let pos = 0;
  let outPos = 0;
  // skip the preamble (the uncompressed length as a varint)
  while (pos < inputLength) {
    const c = input[pos];
    pos++;
    if (c < 128) break;
  }
  if (outputLength && pos >= inputLength) throw new Error("invalid snappy length header");
  while (pos < inputLength) {
    const c = input[pos];
    pos++;
    if (pos >= inputLength) throw new Error("missing eof marker");
    if ((c & 0x3) === 0) {
      let len = (c >>> 2) + 1;
      if (len > 60) {
        if (pos + 3 >= inputLength) throw new Error("snappy error literal pos + 3 >= inputLength");
        const lengthSize = len - 60;
        len = input[pos] + (input[pos + 1] << 8) + (input[pos + 2] << 16) + (input[pos + 3] << 24);
        len = (len & WORD_MASK[lengthSize]) + 1;
        pos += lengthSize;
      }
      if (pos + len > inputLength) throw new Error("snappy error literal exceeds input length");
      // past the output's end, hyparquet's loop drops the bytes (then fails on the length): so here
      if (len > 32 && outPos + len <= outputLength) output.set(input.subarray(pos, pos + len), outPos);
      else for (let i = 0; i < len; i++) output[outPos + i] = input[pos + i];
      pos += len;
      outPos += len;
      continue;
    }
    let offset = 0;
    let len = 0;
    const kind = c & 0x3;
    if (kind === 1) {
      len = ((c >>> 2) & 0x7) + 4;
      offset = input[pos] + ((c >>> 5) << 8);
      pos++;
    } else if (kind === 2) {
      if (inputLength <= pos + 1) throw new Error("snappy error end of input");
      len = (c >>> 2) + 1;
      offset = input[pos] + (input[pos + 1] << 8);
      pos += 2;
    } else {
      if (inputLength <= pos + 3) throw new Error("snappy error end of input");
      len = (c >>> 2) + 1;
      offset = input[pos] + (input[pos + 1] << 8) + (input[pos + 2] << 16) + (input[pos + 3] << 24);
      pos += 4;
    }
    if (offset === 0 || Number.isNaN(offset)) throw new Error(`invalid offset ${offset} pos ${pos} inputLength ${inputLength}`);
    if (offset > outPos) throw new Error("cannot copy from before start of buffer");
    // byte by byte, forwards: a copy may overlap its own output (offset < len repeats a pattern)
    const from = outPos - offset;
    for (let i = 0; i < len; i++) output[outPos + i] = output[from + i];
    outPos += len;
  }
  if (outPos !== outputLength) throw new Error("premature end of input");
}
