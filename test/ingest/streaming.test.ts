import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { streamOf, utf8 } from "./helpers";

// Multi-byte characters (2, 3 and 4 bytes), quoted fields with delimiters, quotes and line breaks,
// CRLF: every chunk size below cuts some of them in half.
const TEXT = `\ufeffname,note,amount\r\n${Array.from({ length: 400 }, (_, i) => `"Zoë ${i}","héllo, ""wörld""\r\n€ ${i} 😀",${i}.5`).join("\r\n")}\r\n`;

describe("streaming", () => {
  it("gives the same frame for any chunking as for one buffer", async () => {
    const bytes = utf8(TEXT);
    const once = await readCsv(bytes);
    expect(once.frame.rowCount).toBe(400);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const streamed = await readCsv(streamOf(bytes, size));
      expect(streamed.frame).toEqual(once.frame);
    }
  });

  it("keeps multi-byte characters and quoted line breaks intact", async () => {
    const { frame } = await readCsv(streamOf(utf8(TEXT), 3));
    const note = frame.columns.find((c) => c.name === "note")!;
    expect(note.storage === "dictionary" && note.dictionary[1]).toBe('héllo, "wörld"\r\n€ 1 😀');
  });

  it("streams a file larger than a parse piece in small chunks", async () => {
    const body = Array.from({ length: 20000 }, (_, i) => `${i},"a\nb ${i % 5}",ü`).join("\n");
    const bytes = utf8(`x,y,z\n${body}\n`);
    const streamed = await readCsv(streamOf(bytes, 4093));
    expect(streamed.frame).toEqual((await readCsv(bytes)).frame);
    expect(streamed.frame.rowCount).toBe(20000);
  });
});
