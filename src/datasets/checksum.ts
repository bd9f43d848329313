import { toHex } from "../auth/api-keys";

/** SHA-256 of a stored object, streamed (the runtime's DigestStream never holds the whole file). */
export async function sha256OfObject(bucket: R2Bucket, key: string): Promise<string | null> {
  const obj = await bucket.get(key);
  if (!obj) return null;
  const digest = new crypto.DigestStream("SHA-256");
  await obj.body.pipeTo(digest);
  return toHex(new Uint8Array(await digest.digest));
}
