/**
 * The rows of the searches whose trials this process may run (./job-input-cache: the
 * coordinator's in memory, or the last read from storage).
 */
import { decodeSearchData } from "../ml/prediction/search/bytes";
import type { FoldPlan } from "../ml/prediction/search/folds";
import type { SearchRows } from "../ml/prediction/search/trial";
import { JobInputCache } from "./job-input-cache";

export interface SearchData {
  data: SearchRows;
  plan: FoldPlan;
}

const cache = new JobInputCache<SearchData>();

/** The coordinator's search, readable by the trials run in this process until `unshare`. */
export function shareSearchData(jobId: string, attempt: number, value: SearchData): void {
  cache.share(jobId, attempt, value);
}

export function unshareSearchData(jobId: string, attempt: number): void {
  cache.unshare(jobId, attempt);
}

/** The search's rows for a trial: the coordinator's when it is in this process, else read once (`read`) and kept for the next trial. */
export function searchDataFor(jobId: string, attempt: number, read: () => Promise<Uint8Array>): Promise<SearchData> {
  return cache.get(jobId, attempt, () => read().then(decodeSearchData));
}
