/**
 * What one description of a table's columns costs (buildFeaturizerSteps: a pass over each
 * column's rows), the pass a dataset's first model no longer makes twice (the data's check and the
 * shared representation's build share it since 08dc4ba). The stored frame is decoded as the
 * trainer decodes it for a prediction model (columns widened as they are read), then described
 * twice: the first pass includes the widening, the second is the pass that was saved.
 *
 * Run: node_modules/node/bin/node --max-old-space-size=6144 --import tsx bench/large/describe-pass.ts --rows 2000000
 */
import { readFileSync } from "node:fs";
import { decodeFrame } from "../../src/ingest/codec";
import { buildFeaturizer } from "../../src/ml/featurize";

const argv = process.argv.slice(2);
const rows = argv.includes("--rows") ? Number(argv[argv.indexOf("--rows") + 1]) : 2_000_000;
const bytes = readFileSync(`/tmp/bench-large/mixed2_${rows}_s13.frame`);
const frame = decodeFrame(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazy: true });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`${rows} rows × ${frame.columns.length} columns, load ${load()}`);
for (const pass of ["first (with widening)", "second (the saved pass)", "third"]) {
  const [t, c] = [performance.now(), cpu()];
  buildFeaturizer(frame, { labelColumn: null });
  console.log(`${pass}: ${((performance.now() - t) / 1000).toFixed(2)} s wall, ${(cpu() - c).toFixed(2)} CPU s`);
}
