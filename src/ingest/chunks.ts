/** Yields an input's bytes piece by piece, so one-shot buffers and streams share one code path.
 * A buffer is cut into 1 MB views (no copies) so its decoded text is never held whole. */
export async function* byteChunks(input: ReadableStream<Uint8Array> | Uint8Array, size = 1 << 20): AsyncGenerator<Uint8Array> {
  if (input instanceof Uint8Array) {
    for (let at = 0; at < input.length; at += size) yield input.subarray(at, Math.min(at + size, input.length));
    return;
  }
  const reader = input.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      if (next.value && next.value.length > 0) yield next.value;
    }
    done = true;
  } finally {
    // Stopping early (a bad row) must cancel the source, e.g. an R2 body, not leave it hanging.
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
