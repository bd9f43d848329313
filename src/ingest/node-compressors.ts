/**
 * NODE ONLY (the trainer container, tests, benchmarks): page decompressors for the Parquet codecs
 * hyparquet does not carry, backed by node:zlib. Never import this from Worker code; the Worker
 * reads UNCOMPRESSED and SNAPPY files and answers others with a clear IngestError.
 */
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from "node:zlib";
import type { Compressors } from "hyparquet";

const asBytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

export const nodeCompressors: Compressors = {
  ZSTD: (input) => asBytes(zstdDecompressSync(input)),
  GZIP: (input) => asBytes(gunzipSync(input)),
  BROTLI: (input) => asBytes(brotliDecompressSync(input)),
};
