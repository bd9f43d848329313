import { describe, expect, it } from "vitest";
import { IngestError } from "../../src/ingest/errors";
import { portableCompressors } from "../../src/ingest/portable-compressors";
import { readSources, type SourceFile } from "../../src/ingest/read-sources";
import { streamOf, utf8 } from "./helpers";

/** A file whose upload recorded `bytes`, delivering `text` (a transfer may deliver other bytes). */
const source = (filename: string, text: string, bytes = utf8(text).length): SourceFile => ({
  filename,
  bytes,
  open: async () => streamOf(utf8(text), 1000),
});

const read = (files: SourceFile[]) => readSources(files, { format: "csv", maxCells: 1e9, compressors: portableCompressors });

async function errorOf(files: SourceFile[]): Promise<Error> {
  return read(files).then(
    () => {
      throw new Error("expected the read to fail");
    },
    (e: Error) => e,
  );
}

const TABLE = `a,b\n${"1,2\n".repeat(2000)}`;

describe("readSources", () => {
  it("fails, as a transfer fault and not bad input, when a file delivers fewer bytes than uploaded", async () => {
    // cut mid-record: read as it came, the last row would be blamed as ragged
    const e = await errorOf([source("t.csv", TABLE.slice(0, 5001), TABLE.length)]);
    expect(e).not.toBeInstanceOf(IngestError);
    expect(e.message).toBe(`'t.csv' was read as 5001 bytes, not the ${TABLE.length} uploaded: its transfer went wrong.`);
  });

  it("fails the same way when a file delivers more bytes than uploaded", async () => {
    const e = await errorOf([source("t.csv", `${TABLE}3,4\n`, TABLE.length)]);
    expect(e).not.toBeInstanceOf(IngestError);
    expect(e.message).toMatch(/^'t.csv' was read as \d+ bytes, not the \d+ uploaded/);
  });

  it("reads files of exactly their uploaded size", async () => {
    const { frame } = await read([source("a.csv", TABLE), source("b.csv", TABLE)]);
    expect(frame.rowCount).toBe(4000);
  });

  it("names the file of a batch that holds a bad record", async () => {
    const e = await errorOf([source("good.csv", TABLE), source("bad.csv", `a,b\n1,2\n3\n`)]);
    expect(e).toBeInstanceOf(IngestError);
    expect((e as IngestError).code).toBe("ragged_row");
    expect(e.message).toMatch(/^In 'bad.csv': Line 3 has 1 field but the header has 2 columns \(the record starts at byte 8\)/);
  });

  it("leaves the message of a single file as the reader wrote it", async () => {
    const e = await errorOf([source("bad.csv", `a,b\n1,2\n3\n`)]);
    expect(e.message).toMatch(/^Line 3 has 1 field/);
  });

  it("keeps reading while a progress report is in flight", async () => {
    const bytes = utf8(TABLE);
    let pulled = 0; // bytes the reader has taken from the source
    const counting: SourceFile = {
      filename: "t.csv",
      bytes: bytes.length,
      open: async () =>
        new ReadableStream({
          pull(controller) {
            if (pulled >= bytes.length) return controller.close();
            controller.enqueue(bytes.slice(pulled, pulled + 500));
            pulled += 500;
          },
        }),
    };
    const reports: number[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = readSources([counting], {
      format: "csv",
      maxCells: 1e9,
      compressors: portableCompressors,
      progressEveryBytes: 2000,
      onProgress: async (read) => {
        reports.push(read);
        if (reports.length === 1) await held; // the first report's round trip is slow
      },
    });
    // While the first report is held, the read goes on to the next report's point (4000 bytes),
    // where it waits: at most one report in flight. Awaiting each report stopped it at ≈ 2000.
    await expect.poll(() => pulled, { timeout: 2000 }).toBeGreaterThanOrEqual(4000);
    await new Promise((r) => setTimeout(r, 20));
    expect(reports).toEqual([2000]);
    expect(pulled).toBeLessThan(6000);
    release();
    const { frame } = await done;
    expect(frame.rowCount).toBe(2000);
    expect(reports.at(-1)).toBe(bytes.length);
  });

  it("stops the read with a failed progress report's error (e.g. a canceled job)", async () => {
    let calls = 0;
    const e = await readSources([source("t.csv", TABLE)], {
      format: "csv",
      maxCells: 1e9,
      compressors: portableCompressors,
      progressEveryBytes: 1000,
      onProgress: async () => {
        calls++;
        throw new Error("job canceled");
      },
    }).then(
      () => new Error("expected the read to fail"),
      (err: Error) => err,
    );
    expect(e.message).toBe("job canceled");
    expect(calls).toBe(1); // seen at the next report, and nothing sent after it
  });
});
