import { describe, expect, it } from "vitest";
import { type GroupBytes, rowGroupBytes } from "../../src/ingest/row-group-bytes";

const file = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) % 251);

/** `bytes` in pieces of `size`; `state` tells whether the source was canceled, and can make it fail after `failAt` bytes. */
function source(bytes: Uint8Array, size: number, state: { canceled?: boolean; failAt?: number } = {}): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.failAt !== undefined && at >= state.failAt) return controller.error(new Error("connection reset"));
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      },
      cancel() {
        state.canceled = true;
      },
    },
    { highWaterMark: 0 },
  );
}

/** Each group as [index, offset, its bytes copied] (buffers are reused once the next group is asked for). */
async function collect(groups: AsyncGenerator<GroupBytes>): Promise<[number, number, number[]][]> {
  const out: [number, number, number[]][] = [];
  for await (const g of groups) out.push([g.index, g.offset, Array.from(g.bytes)]);
  return out;
}

const slice = (a: number, b: number) => Array.from(file.subarray(a, b));

describe("rowGroupBytes", () => {
  it("hands on each span's bytes, skipping the bytes between spans, whatever the pieces' size", async () => {
    const spans = [
      { start: 4, end: 1000 },
      { start: 1000, end: 1000 }, // a group without bytes
      { start: 1200, end: 3100 }, // a gap before it (a page index)
      { start: 3100, end: 4900 },
    ];
    for (const size of [1, 7, 999, 1000, 4099, 65536]) {
      const got = await collect(rowGroupBytes(source(file, size), spans, { readAheadBytes: 1 }));
      expect(got, `pieces of ${size}`).toEqual(spans.map((s, i) => [i, s.start, slice(s.start, s.end)]));
    }
  });

  it("at the end of the file inside a span, hands on what arrived of it and empty groups after it", async () => {
    const spans = [
      { start: 4, end: 3000 },
      { start: 3000, end: 6000 }, // the footer said more than the file holds
      { start: 6000, end: 7000 },
    ];
    const got = await collect(rowGroupBytes(source(file, 333), spans, { readAheadBytes: 1 }));
    expect(got).toEqual([
      [0, 4, slice(4, 3000)],
      [1, 3000, slice(3000, 5000)],
      [2, 5000, []],
    ]);
  });

  it("fails with the source's error, not a decoding one", async () => {
    const spans = [
      { start: 4, end: 2000 },
      { start: 2000, end: 4000 },
    ];
    await expect(collect(rowGroupBytes(source(file, 100, { failAt: 2500 }), spans, { readAheadBytes: 1 }))).rejects.toThrow("connection reset");
  });

  it("cancels the source when the reader stops early (a bad row group)", async () => {
    const state = { canceled: false };
    const spans = [
      { start: 4, end: 1000 },
      { start: 1000, end: 2000 },
      { start: 2000, end: 4000 },
    ];
    const fail = async () => {
      for await (const g of rowGroupBytes(source(file, 100, state), spans, { readAheadBytes: 1 })) {
        if (g.index === 1) throw new Error("bad row group");
      }
    };
    await expect(fail()).rejects.toThrow("bad row group");
    expect(state.canceled).toBe(true);
  });

  it("holds at most the group being decoded, one waiting and one being filled, with a read-ahead of one byte", async () => {
    const spans = Array.from({ length: 10 }, (_, i) => ({ start: 4 + i * 490, end: 4 + (i + 1) * 490 }));
    const held = { max: 0 };
    const got = await collect(rowGroupBytes(source(file, 64, {}), spans, { readAheadBytes: 1, held }));
    expect(got).toHaveLength(10);
    expect(held.max).toBeGreaterThanOrEqual(2 * 490);
    expect(held.max).toBeLessThanOrEqual(3 * 490);
    // without the bound, all ten would wait
    const unbounded = { max: 0 };
    const groups = rowGroupBytes(source(file, 64, {}), spans, { readAheadBytes: 1e9, held: unbounded });
    const first = await groups.next();
    expect(first.done).toBe(false);
    await new Promise((r) => setTimeout(r, 50)); // the pump runs ahead while the "decoder" waits
    await collect(groups);
    expect(unbounded.max).toBeGreaterThan(5 * 490);
  });

  it("does not give the small groups of a file buffers of its one large group's size", async () => {
    const spans = [{ start: 4, end: 3004 }, ...Array.from({ length: 10 }, (_, i) => ({ start: 3004 + i * 150, end: 3004 + (i + 1) * 150 }))];
    const held = { max: 0 };
    const got = await collect(rowGroupBytes(source(file, 64, {}), spans, { readAheadBytes: 1, held }));
    expect(got).toEqual(spans.map((s, i) => [i, s.start, slice(s.start, s.end)]));
    expect(held.max).toBeGreaterThanOrEqual(3000);
    expect(held.max).toBeLessThan(2 * 3000);
  });
});
