import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { csv, expectIngestError, streamOf, utf8 } from "./helpers";

/** Rows with 1-, 2-, 3- and 4-byte characters, far past the first 256k-character parse piece. */
function goodRows(count: number): string {
  let text = "";
  for (let i = 0; i < count; i++) text += `${i},café €${i} 😀\n`;
  return text;
}

/** Reads `prefix + bad` streamed in 4093-byte chunks (splitting characters) and returns the
 * error message; the bad record starts at the UTF-8 length of `prefix`. */
async function messageOf(prefix: string, bad: string): Promise<{ message: string; byte: number }> {
  const error = await readCsv(streamOf(utf8(prefix + bad), 4093)).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return { message: error!.message, byte: utf8(prefix).length };
}

describe("a bad CSV record's error names the byte where the record starts", () => {
  it("a ragged row in a small file", async () => {
    await expectIngestError(
      csv("a,b\n1,2\n3,4,5\n"),
      "ragged_row",
      /^Line 3 has 3 fields but the header has 2 columns \(the record starts at byte 8\)/,
    );
  });

  it("a ragged row deep in a streamed file of multi-byte text", async () => {
    const prefix = `id,note\n${goodRows(40000)}`;
    const { message, byte } = await messageOf(prefix, "1,2,3\n4,5\n");
    expect(byte).toBeGreaterThan(1_000_000);
    expect(message).toContain(`Line 40002 has 3 fields but the header has 2 columns (the record starts at byte ${byte})`);
  });

  it("counts a byte order mark and CRLF line ends", async () => {
    const prefix = `\ufeffid,note\r\n${goodRows(30000).replaceAll("\n", "\r\n")}`;
    const { message, byte } = await messageOf(prefix, "7\r\n");
    expect(message).toContain(`Line 30002 has 1 field but the header has 2 columns (the record starts at byte ${byte})`);
  });

  it("a quote never closed deep in the file", async () => {
    const prefix = `id,note\n${goodRows(40000)}`;
    const { message, byte } = await messageOf(prefix, '9,"open\n10,x\n');
    expect(message).toContain(`never closed (a missing closing quote) (the record starts at byte ${byte})`);
  });

  it("a record longer than 8 MB (a quote never closed)", async () => {
    const prefix = `id,note\n${goodRows(1000)}`;
    const { message, byte } = await messageOf(prefix, `9,"${"x".repeat(9 << 20)}`);
    expect(message).toContain(`The record starting on line 1002 (byte ${byte}) is longer than 8 MB`);
  });

  it("a file that turns to zeros part way, named as binary data", async () => {
    const prefix = `id,note\n${goodRows(4000)}`;
    const { message, byte } = await messageOf(prefix, "\u0000".repeat(9 << 20));
    expect(message).toContain(`The file turns to binary data (NUL bytes) in the record starting on line 4002 (byte ${byte})`);
  });

  it("characters after a closing quote deep in the file", async () => {
    const prefix = `id,note\n${goodRows(40000)}`;
    const { message, byte } = await messageOf(prefix, '9,"closed"x\n10,y\n');
    expect(message).toContain(`line 40002 has characters between its closing quote and the next delimiter (the record starts at byte ${byte})`);
  });
});
