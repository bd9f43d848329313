/**
 * Answers checked against the served OpenAPI document: the status is one the operation
 * documents, its required headers are there, and a JSON body validates against its schema
 * (@cfworker/json-schema: no code generation, which workerd forbids). Used by the Worker tests
 * (test/worker/openapi-answers.test.ts) and by every end-to-end call (test/e2e/service.ts).
 */
import { Validator } from "@cfworker/json-schema";

interface Answer {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: unknown }>;
}
export interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
  components: { schemas: Record<string, unknown> };
}

/**
 * References to components become references to $defs of one schema, which a validator resolves.
 * Examples are left out: the validator would read an example's `id` as a schema identifier.
 */
const local = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/'), (key, value) =>
    key === "example" || key === "examples" ? undefined : value,
  );

/** The operation of a concrete path: literal paths before templated ones. */
function operationOf(doc: Doc, method: string, path: string) {
  for (const { template, pattern } of patternsOf(doc)) {
    const op = doc.paths[template][method.toLowerCase()];
    if (op && pattern.test(path)) return { name: `${method} ${template}`, op };
  }
  return undefined;
}

/** Per document: its path templates as patterns (literal first) and one validator per answer schema. */
interface Compiled {
  patterns: { template: string; pattern: RegExp }[];
  defs: unknown;
  validators: Map<unknown, Validator>;
}
const compiled = new WeakMap<Doc, Compiled>();

function compiledOf(doc: Doc): Compiled {
  let c = compiled.get(doc);
  if (!c) {
    const templates = Object.keys(doc.paths).sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
    const patterns = templates.map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`) }));
    c = { patterns, defs: local(doc.components.schemas), validators: new Map() };
    compiled.set(doc, c);
  }
  return c;
}
const patternsOf = (doc: Doc) => compiledOf(doc).patterns;

/** One validator per schema object of the document: building one converts the whole document's components. */
function validatorOf(doc: Doc, schema: unknown): Validator {
  const c = compiledOf(doc);
  let v = c.validators.get(schema);
  if (!v) {
    v = new Validator({ ...local(schema), $defs: c.defs }, "2020-12", false);
    c.validators.set(schema, v);
  }
  return v;
}

/** Whether the document describes `method` on the path of `url` (answers of undocumented routes are not checked). */
export function isDocumented(doc: Doc, method: string, url: string): boolean {
  return operationOf(doc, method, new URL(url, "https://api.test").pathname) !== undefined;
}

/** What is wrong with an answer by the document; empty when nothing is. */
export async function answerProblems(doc: Doc, method: string, url: string, res: Response): Promise<string[]> {
  const path = new URL(url, "https://api.test").pathname;
  const found = operationOf(doc, method, path);
  if (!found) return [`${method} ${path}: no documented operation`];
  const answer = found.op.responses[String(res.status)];
  if (!answer) return [`${found.name}: ${res.status} is not documented`];
  const problems: string[] = [];
  for (const [name, header] of Object.entries(answer.headers ?? {})) {
    if (header.required && !res.headers.has(name)) problems.push(`${found.name} ${res.status}: no ${name} header`);
  }
  const media = (res.headers.get("Content-Type") ?? "").split(";")[0].trim();
  const schema = answer.content?.[media]?.schema;
  if (media === "application/json" && schema) {
    const result = validatorOf(doc, schema).validate(await res.clone().json());
    for (const e of result.errors.filter((e) => e.keyword !== "properties" && e.keyword !== "$ref" && e.keyword !== "items")) {
      problems.push(`${found.name} ${res.status}: ${e.instanceLocation} ${e.error}`);
    }
  } else if (res.status !== 204 && !answer.content?.[media]) problems.push(`${found.name} ${res.status}: ${media || "no"} content is not documented`);
  return problems;
}
