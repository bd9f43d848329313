/**
 * Fit seconds of a default causal model (learner "auto") from a given checkout, so two versions
 * can be timed one after the other on the same machine (best of 2; ./data confounded,
 * heterogeneous, seed 11):
 *
 *   git worktree add --detach /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/
 *   npx tsx bench/causal/selection/timing.ts /tmp/before 20000 numeric
 *   npx tsx bench/causal/selection/timing.ts "$PWD" 20000 numeric
 */
const [root, rowsArg, kind] = process.argv.slice(2);
const { trainCausalSteps } = await import(`${root}/src/ml/causal/model.ts`);
const { buildRepresentation } = await import(`${root}/src/ml/representation/representation.ts`);
const { causalData } = await import(`${root}/bench/causal/data.ts`);
const d = causalData({ n: Number(rowsArg), seed: 11, effect: 1, heterogeneity: 1, confounding: 1, binary: kind === "binary" });
const representation = buildRepresentation(d.frame);
const times: number[] = [];
let served = "";
for (let i = 0; i < 2; i++) {
  const t0 = performance.now();
  const gen = trainCausalSteps(d.frame, { representation, labelColumn: "y", params: { action_column: "treated" } });
  let r = gen.next();
  while (!r.done) r = gen.next();
  times.push((performance.now() - t0) / 1000);
  served = JSON.stringify(r.value.output.learner.served);
}
console.log(root, rowsArg, kind, `${Math.min(...times).toFixed(2)} s`, served);

// a module, so the top-level awaits above are allowed
export {};
