import { describe, expect, it } from "vitest";
import { bodyBytes } from "../../src/container/body-bytes";

function response(parts: number[][], headers: Record<string, string>): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(Uint8Array.from(p));
      c.close();
    },
  });
  return new Response(body, { headers });
}

describe("bodyBytes", () => {
  it("reads the chunks into one buffer of the Content-Length, at offset 0", async () => {
    const out = await bodyBytes(response([[1, 2, 3], [4], [5, 6]], { "content-length": "6" }));
    expect(Array.from(out)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(out.byteOffset).toBe(0);
    expect(out.buffer.byteLength).toBe(6);
  });

  it("fails on a body shorter or longer than its Content-Length", async () => {
    await expect(bodyBytes(response([[1, 2]], { "content-length": "3" }))).rejects.toThrow("ended after 2 of its 3 bytes");
    await expect(
      bodyBytes(
        response(
          [
            [1, 2],
            [3, 4],
          ],
          { "content-length": "3" },
        ),
      ),
    ).rejects.toThrow("longer than its Content-Length");
  });

  it("concatenates the chunks without a Content-Length or with a compressed body", async () => {
    expect(Array.from(await bodyBytes(response([[7], [8, 9]], {})))).toEqual([7, 8, 9]);
    expect(Array.from(await bodyBytes(response([[7], [8, 9]], { "content-length": "2", "content-encoding": "gzip" })))).toEqual([7, 8, 9]);
  });
});
