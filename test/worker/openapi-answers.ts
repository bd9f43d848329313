/** The served OpenAPI document, read once, and answers checked against it (../openapi-answers). */
import { type Doc, answerProblems as problemsBy } from "../openapi-answers";
import { call } from "./helpers";

let served: Doc | undefined;

export async function answerProblems(method: string, url: string, res: Response): Promise<string[]> {
  served ??= (await (await call("/openapi.json")).json()) as Doc;
  return problemsBy(served, method, url, res);
}
