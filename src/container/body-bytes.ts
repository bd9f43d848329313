/**
 * A response body as one buffer, read chunk by chunk into an allocation of its Content-Length.
 * Node's `res.arrayBuffer()` holds the body about three times over on the way (1.3 GB of peak
 * RSS for a 429 MiB frame; bench/large/RESULTS.md), which for the frame of a 20M-row table is more
 * than the trainer's whole memory budget (issue 13). Without a usable Content-Length (absent, or
 * a compressed body) the chunks are kept and copied once into the result: twice the body at the
 * peak. The result starts at offset 0 of its own buffer, so decodeFrame can view it without a copy.
 */
export async function bodyBytes(res: Response): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const encoding = res.headers.get("content-encoding");
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if ((!encoding || encoding === "identity") && Number.isSafeInteger(declared) && declared >= 0) {
    const out = new Uint8Array(declared);
    let at = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      if (at + r.value.length > declared) throw new Error(`the response body is longer than its Content-Length (${declared} bytes)`);
      out.set(r.value, at);
      at += r.value.length;
    }
    if (at !== declared) throw new Error(`the response body ended after ${at} of its ${declared} bytes`);
    return out;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    chunks.push(r.value);
    total += r.value.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
