/**
 * Jobs are stored under a UUID; the public form shown in job detail is `job_<32 hex>`.
 * Every path taking a job id accepts both.
 *
 * Two kinds of UUID: a job created through its Durable Object gets a random one (version 4); a job
 * recorded after its answer (sync inference, ./finished-jobs) gets a version 7 UUID, whose first
 * 48 bits are the milliseconds it was made at. That is how a read that finds no record knows, from
 * the id alone and in any isolate, that the record may still be on its way, and until when.
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

/** A new id for a job recorded after its answer: a UUIDv7 (RFC 9562) made at `nowMs`. */
export function writtenBehindJobId(nowMs = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6] & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8] & 0x3f); // RFC 9562 variant
  const h = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** When a job id from writtenBehindJobId was made (ms), or null for any other id. */
export function writtenBehindAt(uuid: string): number | null {
  if (!UUID.test(uuid) || uuid[14] !== "7") return null;
  return Number.parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16);
}
