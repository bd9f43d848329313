/** The served OpenAPI document, read once per isolate, and answers checked against it (../openapi-answers). */
import { exports } from "cloudflare:workers";
import { type Doc, isDocumented, answerProblems as problemsBy } from "../openapi-answers";

let served: Promise<Doc> | undefined;

// Read straight from the Worker: `call` checks its answers against this document.
const document = () => (served ??= exports.default.fetch(new Request("https://api.test/openapi.json")).then((r) => r.json() as Promise<Doc>));

export async function answerProblems(method: string, url: string, res: Response): Promise<string[]> {
  return problemsBy(await document(), method, url, res);
}

/**
 * Throws when the answer of a documented operation is not the one the document describes. Answers
 * of routes the document leaves out on purpose (the internal control routes, the console, unknown
 * paths) are not checked here.
 */
export async function expectDocumentedAnswer(method: string, url: string, res: Response): Promise<void> {
  const doc = await document();
  if (!isDocumented(doc, method, url)) return;
  const problems = await problemsBy(doc, method, url, res);
  if (problems.length) throw new Error(`the answer is not the documented one:\n${problems.join("\n")}`);
}
