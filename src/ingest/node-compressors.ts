/**
 * NODE ONLY (the trainer container, tests, benchmarks): page decompressors for the Parquet codecs
 * hyparquet does not carry, backed by node:zlib (faster than the pure-JS ones, and adds BROTLI).
 * Never import this from Worker code: the Worker uses `portableCompressors`
 * (./portable-compressors, ZSTD and GZIP in pure JS) and answers other codecs with a clear
 * IngestError.
 */
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from "node:zlib";
import type { Compressors } from "hyparquet";

const asBytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

export const nodeCompressors: Compressors = {
  ZSTD: (input) => asBytes(zstdDecompressSync(input)),
  GZIP: (input) => asBytes(gunzipSync(input)),
  BROTLI: (input) => asBytes(brotliDecompressSync(input)),
};
