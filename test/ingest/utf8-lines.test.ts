import { describe, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { expectIngestError, streamOf, utf8 } from "./helpers";

/**
 * A UTF-8 error's line is 1 + the line feeds before the bad byte. On an LF file the reader gives
 * that count from the table's lines and the unparsed text, only when the message is built, so
 * these files are past the first 256k-character piece, with line feeds in quoted fields, blank
 * lines and multi-byte characters, and the bad byte at several places (parsed text, unparsed
 * text, a record cut by a chunk).
 */
function body(newline: string, rows: number): string {
  const lines = ["id,note,value"];
  for (let r = 0; r < rows; r++) {
    if (r % 97 === 0) lines.push("");
    const note = r % 13 === 0 ? `"two\nlines, ""quoted"" é"` : r % 7 === 0 ? `"crlf\r\nin quotes"` : `plain ü ${r % 50}`;
    lines.push(`${r},${note},${(r * 0.37).toFixed(2)}`);
  }
  return lines.join(newline) + newline;
}

function withBadByte(text: string, at: number): { bytes: Uint8Array; byte: number; line: number } {
  const head = utf8(text.slice(0, at));
  const tail = utf8(text.slice(at));
  const bytes = new Uint8Array(head.length + 1 + tail.length);
  bytes.set(head);
  bytes[head.length] = 0xff;
  bytes.set(tail, head.length + 1);
  let line = 1;
  for (const b of head) if (b === 0x0a) line++;
  return { bytes, byte: head.length, line };
}

describe("invalid UTF-8 in a large file names the right line", () => {
  for (const newline of ["\n", "\r\n"]) {
    it(`${JSON.stringify(newline)} file, bad byte at several places, whole and streamed`, async () => {
      const text = body(newline, 30000); // ≈ 700k characters: several pieces
      for (const fraction of [0.05, 0.4, 0.41, 0.9, 0.999]) {
        // At the start of a field, so the bad byte is never inside a quoted field's "\r\n".
        const at = text.indexOf(",", Math.floor(text.length * fraction)) + 1;
        const { bytes, byte, line } = withBadByte(text, at);
        const message = new RegExp(`at byte ${byte} \\(line ${line}\\)`);
        await expectIngestError(readCsv(bytes), "invalid_utf8", message);
        for (const size of [1 << 20, 65536, 4099]) await expectIngestError(readCsv(streamOf(bytes, size)), "invalid_utf8", message);
      }
    });
  }

  it("a large file that ends in the middle of a character", async () => {
    const text = body("\n", 30000);
    const bytes = new Uint8Array([...utf8(text), ...utf8("1,x"), 0xe2, 0x82]);
    let lines = 1;
    for (const b of bytes) if (b === 0x0a) lines++;
    const message = new RegExp(`ends in the middle of a character at byte ${bytes.length} \\(line ${lines}\\)`);
    await expectIngestError(readCsv(bytes), "invalid_utf8", message);
    await expectIngestError(readCsv(streamOf(bytes, 65536)), "invalid_utf8", message);
  });
});
