/**
 * `npm run check`: the trainer bundle (src/container/server.ts, as the Dockerfile builds it) takes
 * its packages from `dependencies` only, since the image's build stage installs no
 * devDependencies; and the Dockerfile's Node is the `node` devDependency's minor version (the one
 * the tests ran on). Exits 1 naming what is wrong.
 */
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { version: string }> };
const problems: string[] = [];

const { metafile } = await build({
  entryPoints: ["src/container/server.ts"],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  write: false,
  metafile: true,
  logLevel: "error",
});
const used = new Set<string>();
for (const input of Object.keys(metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) used.add(m[1]);
}
// A package the bundle takes from another package's dependencies is installed with it.
const direct = [...used].filter((name) => name in pkg.dependencies || name in pkg.devDependencies);
for (const name of direct)
  if (!(name in pkg.dependencies)) problems.push(`the trainer bundle uses ${name}, a devDependency: move it to dependencies`);

const nodeMinor = lock.packages["node_modules/node"]?.version.split(".").slice(0, 2).join(".");
const images = [...readFileSync("src/container/Dockerfile", "utf8").matchAll(/^FROM node:(\S+)/gm)].map((m) => m[1]);
for (const tag of images)
  if (!tag.startsWith(`${nodeMinor}-`)) problems.push(`src/container/Dockerfile uses node:${tag}; the project runs on Node ${nodeMinor}`);

if (problems.length) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`trainer bundle: ${direct.sort().join(", ")} (all dependencies); image Node ${nodeMinor}`);
