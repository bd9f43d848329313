/**
 * Reading a bearer token and comparing secrets, once for every caller: the API's keys, the
 * internal control routes and the trainer process. Plain web crypto, so it runs in the Worker and
 * in Node alike.
 */

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

/**
 * Whether two secrets are equal, in time that depends on neither: the SHA-256 digests are
 * compared byte by byte without an early exit, so neither the content nor the length leaks.
 */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([crypto.subtle.digest("SHA-256", enc.encode(given)), crypto.subtle.digest("SHA-256", enc.encode(expected))]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
