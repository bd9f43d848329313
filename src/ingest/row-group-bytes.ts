/**
 * A Parquet file's stream cut into its row groups' bytes: each group's span (from the footer)
 * copied into a buffer as the bytes arrive, handed on once complete, and reused for a later group
 * once the reader asks for the next one (the decoder keeps no view of a group's bytes: values are
 * copied out of its pages); the bytes between spans (page indexes, the footer) are skipped. A pump
 * keeps reading while a group decodes (the consumer yields to the event loop between chunks), up
 * to `readAheadBytes` of complete groups waiting: memory is bounded by a few row groups, not the
 * file. The stream is read to its end, as the caller's byte count checks the file's size there.
 */

export interface GroupBytes {
  index: number;
  /** The file's bytes from `offset` on: the whole span, or what arrived of it before the end of the file. */
  bytes: Uint8Array;
  offset: number;
}

/** The most bytes of buffers held at once (waiting, being filled, being decoded, kept for reuse): for tests and benches. */
export interface HeldBytes {
  max: number;
}

export interface RowGroupBytesOptions {
  /** Complete groups' bytes that may wait for the decoder (at least one group always may). */
  readAheadBytes: number;
  held?: HeldBytes;
}

export async function* rowGroupBytes(
  stream: ReadableStream<Uint8Array>,
  spans: { start: number; end: number }[],
  opts: RowGroupBytesOptions,
): AsyncGenerator<GroupBytes> {
  const queue: GroupBytes[] = [];
  // Buffers are reused: allocating one per group (hundreds of MB over a large file) cost the
  // decoder extra full GCs (V8 counts them as external memory). A new one has room for a group a
  // quarter larger (writers' groups differ by a few KB), never more than the largest: a file of
  // one large group and small ones must not get buffers of the large one's size for each.
  const largest = spans.reduce((m, s) => Math.max(m, s.end - s.start), 0);
  const free: Uint8Array[] = [];
  const take = (size: number) => {
    const i = free.findIndex((b) => b.length >= size);
    const buffer = i >= 0 ? free.splice(i, 1)[0] : new Uint8Array(Math.min(largest, Math.ceil(size * 1.25)));
    return buffer.subarray(0, size);
  };
  let queued = 0; // bytes of the buffers in `queue`
  let filling = 0; // bytes of the buffer being filled
  let decoding = 0; // bytes of the buffer last handed on
  const note = () => {
    const kept = free.reduce((s, b) => s + b.length, 0);
    if (opts.held) opts.held.max = Math.max(opts.held.max, queued + filling + decoding + kept);
  };
  let failure: { error: unknown } | undefined;
  let finished = false;
  let stopped = false;
  let wakeConsumer: (() => void) | undefined;
  let wakePump: (() => void) | undefined;
  const reader = stream.getReader();

  const push = (item: GroupBytes) => {
    queue.push(item);
    queued += item.bytes.buffer.byteLength;
    note();
    wakeConsumer?.();
  };
  const pump = async () => {
    let g = 0;
    let pos = 0; // the file offset of the next byte to arrive
    let buffer: Uint8Array | undefined;
    try {
      for (;;) {
        while (!stopped && queue.length > 0 && queued >= opts.readAheadBytes) await new Promise<void>((r) => (wakePump = r));
        if (stopped) return;
        const next = await reader.read();
        if (next.done) break;
        const chunk = next.value;
        let at = 0;
        while (g < spans.length && (at < chunk.length || spans[g].end === pos + at)) {
          const { start, end } = spans[g];
          const here = pos + at;
          if (here < start) {
            at += Math.min(start - here, chunk.length - at); // between spans: skipped
            continue;
          }
          if (!buffer) {
            buffer = take(end - start);
            filling = buffer.buffer.byteLength;
            note();
          }
          const n = Math.min(end - here, chunk.length - at);
          buffer.set(chunk.subarray(at, at + n), here - start);
          at += n;
          if (here + n === end) {
            filling = 0;
            push({ index: g++, bytes: buffer, offset: start });
            buffer = undefined;
          }
        }
        pos += chunk.length;
      }
      if (stopped) return;
      // The end of the file inside a span (the footer placed a chunk past the end): the groups left
      // get what arrived of them, and the decoder reports the first chunk cut short.
      for (; g < spans.length; g++) {
        const { start } = spans[g];
        push({ index: g, bytes: buffer ? buffer.subarray(0, Math.max(0, pos - start)) : new Uint8Array(0), offset: Math.min(start, pos) });
        buffer = undefined;
      }
    } catch (error) {
      failure = { error };
    } finally {
      filling = 0;
      finished = true;
      wakeConsumer?.();
    }
  };
  const pumping = pump();

  let last: Uint8Array | undefined; // the group handed on last: decoded once the reader asks again
  try {
    for (;;) {
      if (last && free.length < 2) free.push(new Uint8Array(last.buffer));
      last = undefined;
      decoding = 0;
      if (failure) throw failure.error; // a transfer failure first: it is not the file's fault
      const item = queue.shift();
      if (item) {
        queued -= item.bytes.buffer.byteLength;
        decoding = item.bytes.buffer.byteLength;
        last = item.bytes;
        wakePump?.();
        yield item;
        continue;
      }
      if (finished) break;
      await new Promise<void>((r) => (wakeConsumer = r));
      wakeConsumer = undefined;
    }
  } finally {
    if (!finished) {
      // Stopped early (a bad row group): cancel the source, e.g. an R2 body, not leave it hanging.
      stopped = true;
      wakePump?.();
      await reader.cancel().catch(() => undefined);
    }
    await pumping;
    reader.releaseLock();
  }
}
