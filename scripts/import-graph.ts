/**
 * Measures the import graph of src/: which top-level folders import which, imports that go
 * "upward" against the layer order below, cycles between folders and between files, and the
 * largest files; the same folder measures again inside src/ml, between ml's sub-folders. Only
 * relative imports between .ts files under src/ count (type-only ones too).
 *
 *   npx tsx scripts/import-graph.ts            Markdown report
 *   npx tsx scripts/import-graph.ts --json     the same data as JSON
 *   npx tsx scripts/import-graph.ts --check    exit code 1 on any upward import or cycle (also inside ml)
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Lowest layer first. A folder may import only from folders at its own layer or lower.
// "(root)" is the files directly in src/. A folder missing here is reported as unlayered.
const LAYERS: string[][] = [
  ["ml", "core"],
  ["ingest", "storage", "auth", "db"],
  ["model-types"],
  ["inference"],
  ["jobs"],
  ["datasets", "durable"],
  ["models"],
  ["container"],
  ["trainer-control"],
  ["queue"],
  ["api"],
  ["(root)"],
];

// The same rule between the sub-folders of src/ml, lowest layer first. Here "(root)" is the files
// directly in src/ml: the shared low-level ones (frame, featurize, values, errors, label, metrics,
// profile, the Rng) that every algorithm reads, so it is the lowest layer.
const ML_LAYERS: string[][] = [
  ["(root)"],
  ["gbdt", "ssl", "onnx", "factors", "knn", "kmeans", "iforest"], // the algorithms
  ["representation"], // a dataset version's shared representation
  ["fit", "space"], // the non-prediction trainers' contract · the spaces they model in
  ["explain"],
  ["prediction", "causal", "unsupervised"], // the model types
];

/** One level of folders: its layer order, and the folder of a file in it (undefined: outside it). */
interface Level {
  /** What the report calls one of its folders. */
  noun: string;
  /** The layer table's name, for warnings. */
  tableName: string;
  /** The report's headings of its upward imports and of its folder cycles. */
  headings: { upward: string; cycles: string };
  layers: string[][];
  folderOf: (file: string) => string | undefined;
}
const TOP: Level = {
  noun: "folder",
  tableName: "LAYERS",
  headings: { upward: "Upward imports", cycles: "Folder cycles" },
  layers: LAYERS,
  folderOf: (file) => (file.split("/").length > 2 ? file.split("/")[1] : "(root)"),
};
const ML: Level = {
  noun: "ml sub-folder",
  tableName: "ML_LAYERS",
  headings: { upward: "Upward imports inside ml", cycles: "Cycles between ml sub-folders" },
  layers: ML_LAYERS,
  folderOf: (file) => (file.startsWith("src/ml/") ? (file.split("/").length > 3 ? file.split("/")[2] : "(root)") : undefined),
};

const ROOT = path.resolve(import.meta.dirname, "..");
type Edge = { from: string; to: string; typeOnly: boolean; dynamic: boolean };

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return listTs(p);
    const isTs = e.name.endsWith(".ts") && !e.name.endsWith(".d.ts");
    return isTs ? [path.relative(ROOT, p).split(path.sep).join("/")] : [];
  });
}

const layerOf = (level: Level, folder: string): number | undefined => {
  const i = level.layers.findIndex((l) => l.includes(folder));
  return i < 0 ? undefined : i;
};
const layerName = (level: Level, folder: string) => String(layerOf(level, folder) ?? "unlayered");
const byLayer = (level: Level) => (a: string, b: string) =>
  (layerOf(level, a) ?? level.layers.length) - (layerOf(level, b) ?? level.layers.length) || a.localeCompare(b);
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** Index just past the string literal starting at i (or its line's end, if unterminated). */
function skipQuoted(src: string, i: number): number {
  let k = i + 1;
  while (k < src.length && src[k] !== src[i] && src[k] !== "\n") k += src[k] === "\\" ? 2 : 1;
  return k + 1;
}
/** From inside a template literal: [index past its closing ` or past a "${", whether a "${" opened]. */
function skipTemplate(src: string, k: number): [number, boolean] {
  for (; k < src.length; k++) {
    if (src[k] === "\\") k++;
    else if (src[k] === "`") return [k + 1, false];
    else if (src.startsWith("${", k)) return [k + 2, true];
  }
  return [src.length, false];
}
/** Index just past the regex literal starting at i, or i + 1 if the "/" was a division. */
function skipRegex(src: string, i: number): number {
  let inClass = false;
  for (let k = i + 1; k < src.length && src[k] !== "\n"; k++) {
    if (src[k] === "\\") k++;
    else if (src[k] === "[") inClass = true;
    else if (src[k] === "]") inClass = false;
    else if (src[k] === "/" && !inClass) return k + 1 + (/^[a-z]*/.exec(src.slice(k + 1))?.[0].length ?? 0);
  }
  return i + 1;
}
/** Index just past the comment starting at i; a "//" comment stops before its newline. */
function skipComment(src: string, i: number): number {
  const line = src[i + 1] === "/";
  const end = line ? src.indexOf("\n", i) : src.indexOf("*/", i + 2);
  return end < 0 ? src.length : line ? end : end + 2;
}
/** Whether a "/" after `code` starts a regex (after an operator or keyword) rather than a division. */
function regexMayFollow(code: string): boolean {
  let k = code.length;
  while (k > 0 && /\s/.test(code[k - 1])) k--;
  const tail = code.slice(Math.max(0, k - 8), k);
  return /(^|[(,=:[!&|?{};+\-*%<>~^]|\b(return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await))$/.test(tail);
}

/**
 * The source at the same length with only code left readable: comments become spaces, the insides
 * of strings, template literals and regexes become "_" (newlines kept). Offsets still index `src`.
 */
function maskNonCode(src: string): string {
  let out = "";
  let depth = 0; // brace depth, to tell the "}" that closes a template's "${" from others
  const templates: number[] = []; // the depth at each open "${"
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    let j = i + 1;
    let kind: "code" | "comment" | "literal" = "literal";
    if (src.startsWith("//", i) || src.startsWith("/*", i)) {
      j = skipComment(src, i);
      kind = "comment";
    } else if (c === '"' || c === "'") j = skipQuoted(src, i);
    else if (c === "`" || (c === "}" && templates.at(-1) === depth)) {
      if (c === "}") templates.pop();
      const [end, opened] = skipTemplate(src, i + 1);
      if (opened) templates.push(depth);
      j = end;
    } else if (c === "/" && regexMayFollow(out)) j = skipRegex(src, i);
    else {
      kind = "code";
      depth += c === "{" ? 1 : c === "}" ? -1 : 0;
    }
    const chunk = src.slice(i, j);
    if (kind === "comment") out += chunk.replace(/[^\n]/g, " ");
    else if (kind === "literal" && chunk.length > 1) out += chunk[0] + chunk.slice(1, -1).replace(/[^\n]/g, "_") + chunk.at(-1);
    else out += chunk;
    i = j;
  }
  return out;
}

// import/export ... from "x", import "x" (group 5: the specifier) and import("x") (group 2).
const STATIC_RE = /(?<![\w$.])(import|export)\b\s*(type\b\s*)?(?:([\w$*{}\s,]+?)\s*\bfrom\s*)?(["'])([^"'\n]+)\4/dg;
const DYNAMIC_RE = /(?<![\w$.])import\s*\(\s*(["'`])([^"'`\n]+)\1\s*\)/dg;

/** `{ type A, type B as C }`: an import that brings in types only. */
function allInlineTypes(clause = ""): boolean {
  const names =
    /^\{([^}]*)\}$/
      .exec(clause.trim())?.[1]
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  return names.length > 0 && names.every((n) => /^type\s/.test(n));
}

function importsOf(file: string, src: string, files: Set<string>, warnings: string[]): Edge[] {
  const code = maskNonCode(src);
  const specOf = (m: RegExpMatchArray, group: number) => src.slice(...m.indices![group]);
  const found = [
    ...[...code.matchAll(STATIC_RE)].map((m) => ({ spec: specOf(m, 5), typeOnly: !!m[2] || allInlineTypes(m[3]), dynamic: false })),
    ...[...code.matchAll(DYNAMIC_RE)].map((m) => ({ spec: specOf(m, 2), typeOnly: false, dynamic: true })),
  ];
  return found
    .filter((f) => /^\.\.?\//.test(f.spec))
    .flatMap(({ spec, typeOnly, dynamic }) => {
      const base = path.posix.join(path.posix.dirname(file), spec);
      const to = (spec.endsWith(".ts") ? [base] : [`${base}.ts`, `${base}/index.ts`]).find((f) => files.has(f));
      if (!to) warnings.push(`unresolved relative import in ${file}: "${spec}"`);
      return to ? [{ from: file, to, typeOnly, dynamic }] : [];
    });
}

/** Tarjan's strongly connected components, each sorted, in a stable order. */
function sccs(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    onStack = new Set<string>();
  const stack: string[] = [],
    result: string[][] = [];
  const visit = (v: string): void => {
    const n = index.size;
    index.set(v, n), low.set(v, n), stack.push(v), onStack.add(v);
    for (const w of [...graph.get(v)!].sort()) {
      if (!index.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!));
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== n) return;
    const scc: string[] = [];
    for (let w = ""; w !== v; ) (w = stack.pop()!), onStack.delete(w), scc.push(w);
    result.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return result;
}

function graphOf(nodes: string[], edges: [string, string][]): Map<string, Set<string>> {
  const g = new Map(nodes.map((n) => [n, new Set<string>()]));
  for (const [a, b] of edges) g.get(a)!.add(b);
  return g;
}

/** The folders of one level, with their imports between each other, upward imports and folder cycles. */
function analyseLevel(level: Level, files: string[], edges: Edge[], lines: Map<string, number>, warnings: string[]) {
  const folderOf = (file: string) => level.folderOf(file)!;
  const inside = edges.filter((e) => level.folderOf(e.from) !== undefined && level.folderOf(e.to) !== undefined);
  const cross = inside.filter((e) => folderOf(e.from) !== folderOf(e.to));
  const mine = files.filter((f) => level.folderOf(f) !== undefined);
  const order = byLayer(level);
  const folderNames = [...new Set(mine.map(folderOf))].sort(order);
  for (const f of folderNames.filter((f) => layerOf(level, f) === undefined)) {
    warnings.push(`${level.noun} "${f}" is not in ${level.tableName}: treated as a layer of its own (its imports are never "upward")`);
  }
  const folders = folderNames.map((name) => {
    const its = mine.filter((f) => folderOf(f) === name);
    const importsFrom: Record<string, number> = {};
    for (const to of cross
      .filter((e) => folderOf(e.from) === name)
      .map((e) => folderOf(e.to))
      .sort(order)) {
      importsFrom[to] = (importsFrom[to] ?? 0) + 1;
    }
    return { name, layer: layerOf(level, name) ?? null, files: its.length, lines: its.reduce((s, f) => s + lines.get(f)!, 0), importsFrom };
  });
  const upward = cross.filter((e) => (layerOf(level, folderOf(e.from)) ?? Infinity) < (layerOf(level, folderOf(e.to)) ?? -Infinity));
  const folderGraph = graphOf(
    folderNames,
    cross.map((e) => [folderOf(e.from), folderOf(e.to)]),
  );
  return {
    folders,
    upward: upward.map(({ from, to, typeOnly }) => ({ from, to, typeOnly })),
    folderCycles: sccs(folderGraph)
      .filter((c) => c.length > 1)
      .map((c) => c.sort(order)),
  };
}

function analyse() {
  const files = listTs(path.join(ROOT, "src")).sort();
  const fileSet = new Set(files),
    warnings: string[] = [];
  const texts = new Map(files.map((f) => [f, readFileSync(path.join(ROOT, f), "utf8")]));
  const lines = new Map(files.map((f) => [f, lineCount(texts.get(f)!)]));
  const edges = files.flatMap((f) => importsOf(f, texts.get(f)!, fileSet, warnings));
  const top = analyseLevel(TOP, files, edges, lines, warnings);
  const ml = analyseLevel(ML, files, edges, lines, warnings);
  const intoApi = edges.filter((e) => TOP.folderOf(e.to) === "api" && !["api", "(root)"].includes(TOP.folderOf(e.from)!));
  const fileGraph = graphOf(
    files,
    edges.map((e) => [e.from, e.to]),
  );
  const bySize = [...lines].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return {
    totals: {
      files: files.length,
      lines: bySize.reduce((s, [, n]) => s + n, 0),
      imports: edges.length,
      typeOnly: edges.filter((e) => e.typeOnly).length,
      dynamic: edges.filter((e) => e.dynamic).length,
    },
    folders: top.folders,
    upward: top.upward,
    importsIntoApiFromNonRoot: {
      statements: intoApi.length,
      filePairs: new Set(intoApi.map((e) => `${e.from} ${e.to}`)).size,
      importingFiles: new Set(intoApi.map((e) => e.from)).size,
    },
    folderCycles: top.folderCycles,
    /** The same measures between the sub-folders of src/ml (ML_LAYERS). */
    ml,
    fileCycles: sccs(fileGraph).filter((c) => c.length > 1 || fileGraph.get(c[0])!.has(c[0])),
    largestFiles: bySize.slice(0, 15).map(([file, n]) => ({ file, lines: n })),
    filesOver300Lines: bySize.filter(([, n]) => n > 300).length,
    warnings,
  };
}

const code = (s: string) => `\`${s}\``;
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const list = (items: string[]) => (items.length ? [...items.map((s) => `- ${s}`), ""] : []);

type Report = ReturnType<typeof analyse>;

/** A level's folder table, its upward imports (then `afterUpward`) and its folder cycles. */
function levelSections(level: Level, r: Pick<Report, "folders" | "upward" | "folderCycles">, afterUpward: string[] = []): string[] {
  const arrow = (a: string, b: string) => {
    const [fa, fb] = [level.folderOf(a)!, level.folderOf(b)!];
    return `${fa} ${layerName(level, fa)} → ${fb} ${layerName(level, fb)}`;
  };
  return [
    `| ${level.noun} | layer | files | lines | imports from |`,
    "|---|---:|---:|---:|---|",
    ...r.folders.map((f) => {
      const from =
        Object.entries(f.importsFrom)
          .map(([k, n]) => `${k} ${n}`)
          .join(", ") || "—";
      return `| ${code(f.name)} | ${layerName(level, f.name)} | ${f.files} | ${f.lines} | ${from} |`;
    }),
    "",
    `### ${level.headings.upward}: ${r.upward.length}`,
    "",
    ...list(r.upward.map((e) => `${code(e.from)} → ${code(e.to)} (${arrow(e.from, e.to)}${e.typeOnly ? ", type-only" : ""})`)),
    ...afterUpward,
    `### ${level.headings.cycles}: ${r.folderCycles.length}`,
    "",
    ...list(r.folderCycles.map((c) => c.map(code).join(", "))),
  ];
}

function markdown(r: Report): string {
  const t = r.totals,
    api = r.importsIntoApiFromNonRoot;
  return [
    "## Import graph of src/",
    "",
    ...r.warnings.map((w) => `> **Warning:** ${w}\n`),
    `${t.files} files, ${t.lines} lines, ${t.imports} relative import statements (${t.typeOnly} type-only, ${t.dynamic} dynamic).`,
    "",
    ...levelSections(TOP, r, [
      `Imports into \`api\` from other folders except \`(root)\`: **${count(api.statements, "import statement")}** ` +
        `(${count(api.filePairs, "distinct file pair")}, from ${count(api.importingFiles, "file")}).`,
      "",
    ]),
    "## Inside src/ml",
    "",
    "Imports between the sub-folders of `ml` (`(root)`: the files directly in `src/ml`).",
    "",
    ...levelSections(ML, r.ml),
    `### File cycles: ${r.fileCycles.length}`,
    "",
    ...list(r.fileCycles.map((c) => `${count(c.length, "file")}: ${c.map(code).join(", ")}`)),
    "### Largest files",
    "",
    "| file | lines |",
    "|---|---:|",
    ...r.largestFiles.map((f) => `| ${code(f.file)} | ${f.lines} |`),
    "",
    `${r.filesOver300Lines} files exceed 300 lines.`,
  ].join("\n");
}

const args = new Set(process.argv.slice(2));
const report = analyse();
console.log(args.has("--json") ? JSON.stringify(report, null, 2) : markdown(report));
const failures = [report.upward, report.folderCycles, report.ml.upward, report.ml.folderCycles, report.fileCycles];
if (args.has("--check") && failures.some((f) => f.length)) process.exitCode = 1;
