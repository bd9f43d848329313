/**
 * The rows of the searches whose trials this process may run, by job and attempt: the
 * coordinator's own (shared in memory: a trial run in the coordinator's process reads nothing),
 * or the last one read from storage for a trial (a search's trials keep coming to the same
 * instance, its slot's).
 */
import { decodeSearchData } from "../ml/prediction/search/bytes";
import type { FoldPlan } from "../ml/prediction/search/folds";
import type { SearchRows } from "../ml/prediction/search/trial";

export interface SearchData {
  data: SearchRows;
  plan: FoldPlan;
}

const shared = new Map<string, SearchData>();
let lastRead: { key: string; value: Promise<SearchData> } | null = null;

const keyOf = (jobId: string, attempt: number) => `${jobId}:${attempt}`;

/** The coordinator's search, readable by the trials run in this process until `unshare`. */
export function shareSearchData(jobId: string, attempt: number, value: SearchData): void {
  shared.set(keyOf(jobId, attempt), value);
}

export function unshareSearchData(jobId: string, attempt: number): void {
  shared.delete(keyOf(jobId, attempt));
  if (lastRead?.key === keyOf(jobId, attempt)) lastRead = null;
}

/** The search's rows for a trial: the coordinator's when it is in this process, else read once (`read`) and kept for the next trial. */
export function searchDataFor(jobId: string, attempt: number, read: () => Promise<Uint8Array>): Promise<SearchData> {
  const key = keyOf(jobId, attempt);
  const own = shared.get(key);
  if (own) return Promise.resolve(own);
  if (lastRead?.key !== key) {
    const value = read().then(decodeSearchData);
    // a failed read is not kept: the next trial tries again
    value.catch(() => {
      if (lastRead?.key === key) lastRead = null;
    });
    lastRead = { key, value };
  }
  return lastRead.value;
}
