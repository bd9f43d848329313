import { z } from "zod";
import { base64Url } from "../auth/api-keys";

/**
 * Signed upload URLs served by the Worker itself: `PUT {origin}/uploads/{token}`. The token is
 * an HMAC-SHA256-signed claim naming exactly one file record, its content type, its size and an
 * expiry, so it can be handed to any HTTP client without an API key. (R2's own presigned S3 URLs
 * would need account S3 credentials, which local development does not have; the Worker route
 * works the same locally and in production, up to the Worker request-size limit.)
 */
const uploadClaimSchema = z.object({
  file_id: z.string(),
  org_id: z.string(),
  content_type: z.string(),
  bytes: z.number().int(),
  exp: z.number().int(),
});
export type UploadClaim = z.infer<typeof uploadClaimSchema>;

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

export async function signUploadToken(secret: string, claim: UploadClaim): Promise<string> {
  const payload = base64Url(new TextEncoder().encode(JSON.stringify(claim)));
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(payload));
  return `${payload}.${base64Url(new Uint8Array(sig))}`;
}

export type TokenCheck = { status: "ok"; claim: UploadClaim } | { status: "invalid" } | { status: "expired" };

export async function verifyUploadToken(secret: string, token: string, nowMs = Date.now()): Promise<TokenCheck> {
  const [payload, sig] = token.split(".");
  if (!payload || !sig) return { status: "invalid" };
  try {
    const ok = await crypto.subtle.verify("HMAC", await hmacKey(secret), fromBase64Url(sig), new TextEncoder().encode(payload));
    if (!ok) return { status: "invalid" };
    const claim = uploadClaimSchema.parse(JSON.parse(new TextDecoder().decode(fromBase64Url(payload))));
    return claim.exp * 1000 > nowMs ? { status: "ok", claim } : { status: "expired" };
  } catch {
    return { status: "invalid" };
  }
}

function fromBase64Url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
}
