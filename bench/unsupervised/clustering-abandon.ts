/**
 * What abandoning clearly worse restarts (src/ml/kmeans/abandon.ts) costs in quality and saves in
 * time: every fit is run with the rule and without it (`abandonWorse: false`: every restart to
 * its end), same seeds, alternately; the kept restarts are compared (inertia, centers) and the
 * CPU time of both summed. The sets: the clustering benchmark's generated blobs (separated,
 * overlapping, many clusters), shuttle and fertility in the features space, and the speed
 * section's 500k × 16 overlapping blobs; n_init 3 (our default) and 10 (scikit-learn 1.2's).
 *
 *   npx tsx bench/unsupervised/clustering-abandon.ts [--seeds 40] [--big-seeds 5] [--n-init 3,10] [--sets shuttle,blobs σ=4]
 */
import { kmeans } from "../../src/ml/kmeans/kmeans";
import { blobs, labelledTable, type Matrix, spacesOf } from "./clustering-data";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const seeds = Number(opt("seeds") ?? 40);
const bigSeeds = Number(opt("big-seeds") ?? 5);
const only = opt("sets")?.split(",");
const nInits = (opt("n-init") ?? "3,10").split(",").map(Number);

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};

interface Row {
  name: string;
  nInit: number;
  fits: number;
  same: number;
  better: number;
  worse: number;
  abandoned: number;
  /** Abandoned restarts that would have ended at the fit's best inertia (within 1e-9). */
  abandonedBest: number;
  restarts: number;
  cpuOn: number;
  cpuOff: number;
}

function compare(name: string, m: Matrix, k: number, nInit: number, count: number): Row {
  const row: Row = { name, nInit, fits: count, same: 0, better: 0, worse: 0, abandoned: 0, abandonedBest: 0, restarts: 0, cpuOn: 0, cpuOff: 0 };
  for (let seed = 0; seed < count; seed++) {
    // alternate which goes first (the second of a pair can pay for the first's garbage)
    const order = seed % 2 ? [true, false] : [false, true];
    const fits = new Map<boolean, ReturnType<typeof kmeans>>();
    for (const on of order) {
      const c0 = process.cpuUsage();
      fits.set(on, kmeans(m.X, m.rows, m.cols, { k, nInit, seed, abandonWorse: on }));
      if (on) row.cpuOn += cpuSeconds(c0);
      else row.cpuOff += cpuSeconds(c0);
    }
    const on = fits.get(true)!;
    const off = fits.get(false)!;
    // the same optimum reached by another restart can differ in the last bit
    const same = Math.abs(on.inertia - off.inertia) <= 1e-9 * off.inertia;
    if (same) row.same++;
    else if (on.inertia < off.inertia) row.better++;
    else row.worse++;
    row.restarts += nInit;
    const abandoned = on.restartInertias.map((v, i) => v !== off.restartInertias[i]);
    row.abandoned += abandoned.filter(Boolean).length;
    row.abandonedBest += abandoned.filter((a, i) => a && off.restartInertias[i] <= off.inertia * (1 + 1e-9)).length;
  }
  const r = row;
  console.log(
    `| ${r.name} | ${r.nInit} | ${r.same} / ${r.fits} | ${r.worse} | ${r.abandoned} / ${r.restarts} | ${r.abandonedBest} | ${r.cpuOn.toFixed(2)} / ${r.cpuOff.toFixed(2)} | **${(r.cpuOn / r.cpuOff).toFixed(2)}** |`,
  );
  return row;
}

console.log(`Command: \`npx tsx bench/unsupervised/clustering-abandon.ts${args.length ? ` ${args.join(" ")}` : ""}\` — ${new Date().toISOString()}`);
console.log("");
console.log(
  "| data | n_init | kept optimum the same | kept worse | restarts abandoned | of which would have ended at the best | CPU s with / without | ratio |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
const sets: { name: string; m: Matrix; k: number }[] = [
  { name: "blobs σ=1 20k×16 k=8", m: blobs(20_000, 16, 8, 1, 7), k: 8 },
  { name: "blobs σ=4 20k×16 k=8", m: blobs(20_000, 16, 8, 4, 7), k: 8 },
  { name: "blobs σ=2 50k×16 k=20", m: blobs(50_000, 16, 20, 2, 7), k: 20 },
];
const wanted = (name: string) => !only || only.some((o) => name.startsWith(o));
for (const table of ["shuttle", "fertility"].filter(wanted)) {
  const t = labelledTable(table);
  sets.push({ name: `${table} features k=${t.classes}`, m: spacesOf(t.frame).features, k: t.classes });
}
for (const s of sets.filter((s) => wanted(s.name))) for (const nInit of nInits) compare(s.name, s.m, s.k, nInit, seeds);
if (wanted("blobs σ=4 500k")) compare("blobs σ=4 500k×16 k=8", blobs(500_000, 16, 8, 4, 11), 8, 3, bigSeeds);
