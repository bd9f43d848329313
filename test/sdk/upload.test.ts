/** The SDK picks the upload flow by size: one multipart POST up to 30 MB, the signed-URL flow above. */
import { describe, expect, it } from "vitest";
import { DIRECT_UPLOAD_MAX_BYTES, TabularClient } from "../../sdk/src/index";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function fakeService() {
  const calls: { method: string; path: string; length: string | null; type: string | null; auth: string | null; received: number }[] = [];
  const impl = (async (req: Request) => {
    const url = new URL(req.url);
    const received = (await req.arrayBuffer()).byteLength;
    calls.push({
      method: req.method,
      path: url.pathname,
      length: req.headers.get("Content-Length"),
      type: req.headers.get("Content-Type"),
      auth: req.headers.get("Authorization"),
      received,
    });
    if (url.pathname === "/datasets") return json({ dataset: { id: "d", version_id: "v", version_number: 1 }, job_id: "j", status: "queued" }, 201);
    if (url.pathname === "/datasets/upload") {
      return json(
        {
          upload: {
            upload_url: "https://bucket.example/put?sig=1",
            method: "PUT",
            headers: { "Content-Type": "text/csv" },
            expires_at: "2030-01-01T00:00:00Z",
          },
          dataset: { id: "d", version_id: "v", version_number: 1, archived: false },
          job_id: "j",
          status: "waiting_for_upload",
        },
        201,
      );
    }
    if (url.pathname === "/put") return new Response(null, { status: 200 });
    if (url.pathname === "/datasets/v/complete") {
      return json({ dataset_id: "d", dataset_version_id: "v", job_id: "j", status: "queued", counts: { expected: 1, uploaded: 1, failed: 0 } });
    }
    return json({ detail: "Not found" }, 404);
  }) as typeof fetch;
  return { calls, client: new TabularClient({ baseUrl: "http://svc", apiKey: "sk_test", fetch: impl }) };
}

describe("upload", () => {
  it("sends a file of exactly 30 MB in one multipart POST, its length declared", async () => {
    const { calls, client } = fakeService();
    const up = await client.upload(new Blob([new Uint8Array(DIRECT_UPLOAD_MAX_BYTES)]), { filename: "big.csv" });
    expect(up.method).toBe("direct");
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["POST /datasets"]);
    expect(calls[0]!.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(Number(calls[0]!.length)).toBe(calls[0]!.received);
  });

  it("sends a larger one through the signed URL: prepare, PUT with the declared type and length, complete", async () => {
    const { calls, client } = fakeService();
    const size = DIRECT_UPLOAD_MAX_BYTES + 1;
    const progress: number[] = [];
    const up = await client.upload(new File([new Uint8Array(size)], "big.csv"), { name: "big", onProgress: (n) => progress.push(n) });
    expect(up).toMatchObject({ method: "signed", datasetId: "d", versionId: "v", jobId: "j" });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["POST /datasets/upload", "PUT /put", "POST /datasets/v/complete"]);
    expect(calls[1]).toMatchObject({ length: String(size), type: "text/csv", received: size, auth: null }); // the key never goes to storage
    expect(progress.at(-1)).toBe(size);
  });

  it("refuses a Blob without a file name", async () => {
    const { client } = fakeService();
    await expect(client.upload(new Blob(["a\n1\n"]))).rejects.toThrow(/filename/);
  });
});
