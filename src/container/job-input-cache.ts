/**
 * What the parts of a job (search trials, batch row ranges) read, by job and attempt: the
 * coordinator's own value when it runs in this process (shared in memory: such a part reads
 * nothing), else the last one read from storage (a job's parts keep coming to the same instance,
 * its slot's), read once and kept for the next part.
 */
export class JobInputCache<T> {
  private readonly shared = new Map<string, T>();
  private lastRead: { key: string; value: Promise<T> } | null = null;

  private static keyOf(jobId: string, attempt: number): string {
    return `${jobId}:${attempt}`;
  }

  /** The coordinator's value, for the parts run in this process until `unshare`. */
  share(jobId: string, attempt: number, value: T): void {
    this.shared.set(JobInputCache.keyOf(jobId, attempt), value);
  }

  unshare(jobId: string, attempt: number): void {
    const key = JobInputCache.keyOf(jobId, attempt);
    this.shared.delete(key);
    if (this.lastRead?.key === key) this.lastRead = null;
  }

  /** The coordinator's value when it is in this process, else `read`'s, kept for the next part. */
  get(jobId: string, attempt: number, read: () => Promise<T>): Promise<T> {
    const key = JobInputCache.keyOf(jobId, attempt);
    const own = this.shared.get(key);
    if (own) return Promise.resolve(own);
    if (this.lastRead?.key !== key) {
      const value = read();
      // a failed read is not kept: the next part tries again
      value.catch(() => {
        if (this.lastRead?.key === key) this.lastRead = null;
      });
      this.lastRead = { key, value };
    }
    return this.lastRead.value;
  }
}
