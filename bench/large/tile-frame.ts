/**
 * A frame of more rows made from a smaller one, for bench/large/train-memory.ts at a size whose CSV
 * would take too long to write and read here (50 M rows: ≈ 4.5 GB): the rows of
 * mixed2_{FROM}_s13.frame repeated (the last copy cut) up to --rows, written as
 * mixed2_{ROWS}_s13.frame, encoded as the bench's ingest encodes (encodeFrame). Every column keeps
 * its kind and stored form; a high-cardinality dictionary column (the `user` ids: at least one
 * value per 100 rows) gets new values in each copy (code + k × its dictionary size, the value
 * suffixed `~k`), so that its cardinality grows with the rows as in the generated table. The
 * generated row id is renumbered 0..rows-1.
 *
 * Run: node_modules/node/bin/node --max-old-space-size=12288 --import tsx bench/large/tile-frame.ts --from 20000000 --rows 50000000
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { decodeFrame, encodeFrame } from "../../src/ingest/codec";
import type { Column, Frame } from "../../src/ml/frame";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const FROM = Number(arg("--from", "20000000"));
const ROWS = Number(arg("--rows", "50000000"));
const DIR = arg("--dir", "/tmp/bench-large");

const source = decodeFrame(new Uint8Array(readFileSync(`${DIR}/mixed2_${FROM}_s13.frame`)));
const n = source.rowCount;
const copies = Math.ceil(ROWS / n);

function tile(c: Column): Column {
  if (c.storage === "numeric") {
    const values = new Float64Array(ROWS);
    if (c.kind === "id") for (let i = 0; i < ROWS; i++) values[i] = i;
    else for (let k = 0; k < copies; k++) values.set(c.values.subarray(0, Math.min(n, ROWS - k * n)), k * n);
    const out: Column = { ...c, values };
    if (c.spellings) {
      const codes = new Int32Array(ROWS);
      for (let k = 0; k < copies; k++) codes.set(c.spellings.codes.subarray(0, Math.min(n, ROWS - k * n)), k * n);
      out.spellings = { ...c.spellings, codes };
    }
    return out;
  }
  const codes = new Int32Array(ROWS);
  const size = c.dictionary.length;
  const grows = size * 100 >= n;
  for (let k = 0; k < copies; k++) {
    const part = c.codes.subarray(0, Math.min(n, ROWS - k * n));
    const shift = grows ? k * size : 0;
    for (let i = 0; i < part.length; i++) codes[k * n + i] = part[i] < 0 ? -1 : part[i] + shift;
  }
  const dictionary = grows
    ? Array.from({ length: size * copies }, (_, i) => (i < size ? c.dictionary[i] : `${c.dictionary[i % size]}~${Math.floor(i / size)}`))
    : c.dictionary;
  return { ...c, codes, dictionary };
}

const frame: Frame = { rowCount: ROWS, columns: source.columns.map(tile) };
const out = `${DIR}/mixed2_${ROWS}_s13.frame`;
const bytes = encodeFrame(frame);
writeFileSync(`${out}.part`, bytes);
renameSync(`${out}.part`, out);
console.log(`[tile] ${out}: ${ROWS} rows from ${FROM} (${copies} copies), ${(bytes.length / 2 ** 20).toFixed(0)} MiB`);
