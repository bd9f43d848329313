import { type FieldIssue, InvalidInput } from "../core/errors";

/**
 * Run a service call whose field paths differ from this route's request body (e.g. a service
 * that takes `files: [...]` behind a route whose body has one `file`), renaming them in its 422.
 */
export async function renameFieldPaths<T>(call: () => Promise<T>, rename: (path: FieldIssue["path"]) => FieldIssue["path"]): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof InvalidInput) throw new InvalidInput(e.issues.map((i) => ({ ...i, path: rename(i.path) })));
    throw e;
  }
}
