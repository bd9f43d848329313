import { describe, expect, it } from "vitest";
import { readCsv, readCsvAllDictionary, readCsvWithPapaparse } from "../../src/ingest/csv";
import { spanHash } from "../../src/ingest/csv-tokenizer";
import { DictionaryBuilder } from "../../src/ingest/dictionary-builder";
import { SpanBatch } from "../../src/ingest/span-batch";
import { seededRandom } from "../seeded-random";
import { col, expectSameFrame, streamOf, utf8 } from "./helpers";

/** A cell of a column of many values (so that its index becomes large: pushBatch), with now and
 * then a padded copy, a missing marker, an equal-hash pair ("Aa"/"BB") or a value new so far. */
function manyValued(r: () => number): string {
  const x = r();
  if (x < 0.02) return ["", "NA", " null "][Math.floor(r() * 3)];
  if (x < 0.04) return ` u${Math.floor(r() * 60000)} `;
  if (x < 0.05) return r() < 0.5 ? "AaBB" : "BBAa";
  return `u${Math.floor(r() * 60000)}`;
}

describe("SpanBatch and DictionaryBuilder.pushBatch: the codes of pushing one by one", () => {
  it("in batches of every size, strings among the spans, past the large-index threshold", () => {
    const r = seededRandom(5);
    const cells = Array.from({ length: 200_000 }, () => (r() < 0.01 ? 'say "hi"' : manyValued(r)));
    const text = cells.join(",");
    const one = new DictionaryBuilder(16);
    const batched = new DictionaryBuilder(16);
    const batch = new SpanBatch();
    let at = 0;
    let size = 1;
    for (let i = 0; i < cells.length; i++) {
      const c = cells[i];
      if (c.includes('"')) {
        one.push(c);
        batch.pushString(c);
      } else {
        one.pushSpan(text, at, at + c.length, spanHash(text, at, at + c.length));
        batch.push(at, at + c.length, spanHash(text, at, at + c.length));
      }
      at += c.length + 1;
      if (batch.count >= size || i === cells.length - 1) {
        batched.pushBatch(batch, text);
        batch.clear();
        size = 1 + Math.floor(r() * 5000);
      }
    }
    expect(one.large).toBe(true);
    expect(batched.dictionary).toEqual(one.dictionary);
    expect(Array.from(batched.finish())).toEqual(Array.from(one.finish()));
    expect(batched.missingCount).toBe(one.missingCount);
  });
});

describe("readCsv with a many-valued column (its cells looked up in batches) gives papaparse's frame", () => {
  it("whole, streamed in odd chunks, CRLF, quoted cells with doubled quotes, a numeric column falling back", async () => {
    const r = seededRandom(11);
    const rows = 150_000;
    const lines = ["user,x,note,late"];
    for (let i = 0; i < rows; i++) {
      const user = manyValued(r);
      const note = r() < 0.01 ? '"a ""quoted"" cell"' : r() < 0.5 ? "p" : "q";
      const late = i === rows - 100 ? "text now" : String(i % 1000);
      lines.push(`${user},${(r() * 100).toFixed(2)},${note},${late}`);
    }
    const text = `${lines.join("\n")}\n`;
    const bytes = utf8(text);
    const want = (await readCsvWithPapaparse(bytes)).frame;
    expect(col(want, "user").storage).toBe("dictionary");
    expect(col(want, "late").storage).toBe("dictionary");
    expectSameFrame((await readCsv(bytes)).frame, want, "one buffer");
    expectSameFrame((await readCsv(streamOf(bytes, 7919), { fileBytes: bytes.length })).frame, want, "streamed");
    expectSameFrame((await readCsvAllDictionary(bytes)).frame, (await readCsvWithPapaparse(bytes, {})).frame, "all dictionary");
    const crlf = utf8(text.replaceAll("\n", "\r\n"));
    expectSameFrame((await readCsv(crlf)).frame, (await readCsvWithPapaparse(crlf)).frame, "CRLF");
  });
});
