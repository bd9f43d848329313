import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readParquet } from "../../src/ingest/parquet";
import { portableCompressors } from "../../src/ingest/portable-compressors";

describe("portable Parquet decompressors (the Worker's)", () => {
  it("read a ZSTD bench file exactly as node:zlib does", async () => {
    const bytes = readFileSync(new URL("../../../shared/bench-data/diamonds.parquet", import.meta.url));
    const portable = await readParquet(bytes, { compressors: portableCompressors });
    const node = await readParquet(bytes, { compressors: nodeCompressors });
    expect(portable.frame.rowCount).toBe(53940);
    expect(portable.frame).toEqual(node.frame);
  });
});
