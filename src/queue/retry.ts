/** Back-off between attempts after a transient error: 5 s, 10 s, 20 s … */
export const retryDelaySeconds = (attempt: number) => 5 * 2 ** Math.max(0, attempt - 1);
