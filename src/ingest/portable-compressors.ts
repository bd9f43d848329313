/**
 * Page decompressors for the Parquet codecs hyparquet does not carry, in pure JavaScript so they
 * run in the Worker (which may not compile WebAssembly from bytes, ruling out wasm codecs) as well
 * as in Node: ZSTD (fzstd) and GZIP (fflate). Brotli is left out: rare in Parquet, and the reader
 * names the codec in its error.
 */
import { gunzipSync } from "fflate";
import { decompress as zstdDecompress } from "fzstd";
import type { Compressors } from "hyparquet";

export const portableCompressors: Compressors = {
  ZSTD: (input, outputLength) => zstdDecompress(input, new Uint8Array(outputLength)),
  GZIP: (input, outputLength) => gunzipSync(input, { out: new Uint8Array(outputLength) }),
};
