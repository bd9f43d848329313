/**
 * Jobs are stored under a UUID; the public form shown in job detail is `job_<32 hex>`.
 * Every path taking a job id accepts both.
 */
const PUBLIC = /^job_([0-9a-f]{32})$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function publicJobId(uuid: string): string {
  return `job_${uuid.replace(/-/g, "")}`;
}

/** The stored UUID for either form, or null when the string is neither. */
export function parseJobId(raw: string): string | null {
  if (UUID.test(raw)) return raw.toLowerCase();
  const m = PUBLIC.exec(raw);
  if (!m) return null;
  const h = m[1].toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const isUuid = (s: string) => UUID.test(s);
