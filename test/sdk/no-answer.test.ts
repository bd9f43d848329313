/**
 * A request that got no answer at all (the connection closed or reset before any response, a
 * broken pipe while sending, a refused connection) is sent again when that cannot do anything
 * twice; creates carry an Idempotency-Key, the same on every attempt. Against a real local HTTP
 * server that drops connections, through Node's fetch.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { fail } from "../../sdk/src/cli/output";
import { ApiError, ConnectionFailedError, TabularClient } from "../../sdk/src/index";
import { fetchRetrying } from "../../sdk/src/retry";

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  bytes: number;
}

type Answer = (res: ServerResponse) => void;
type Script = (n: number, req: IncomingMessage) => "drop" | "drop-at-once" | Answer;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A server that runs `script` on each request (n counts from 1): "drop-at-once" destroys the
 * connection as the request arrives, while its body is still being written; "drop" reads the body
 * first (the request arrived) then destroys it; a function answers once the body is read.
 */
async function service(script: Script, port = 0) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const n = seen.length + 1;
    const entry: Seen = { method: req.method ?? "", path: req.url ?? "", key: req.headers["idempotency-key"] as string | undefined, bytes: 0 };
    seen.push(entry);
    const plan = script(n, req);
    if (plan === "drop-at-once") return req.socket.destroy();
    for await (const chunk of req) entry.bytes += (chunk as Buffer).length;
    if (plan === "drop") req.socket.destroy();
    else plan(res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new TabularClient({ baseUrl: base, apiKey: "sk_test", retry: { backoffMs: 1, unansweredRetries: 3 } });
  return { seen, base, client };
}

const json = (status: number, body: unknown) => (res: ServerResponse) => {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
};

const firstDropped =
  (answer: Answer, drop: "drop" | "drop-at-once" = "drop"): Script =>
  (n) =>
    n === 1 ? drop : answer;

const started = { dataset: { id: "d", version_id: "v", version_number: 1 }, job_id: "j", status: "queued" };

describe("requests that got no answer", () => {
  it("sends a read again after its connection closed before any answer", async () => {
    const { seen, client } = await service(firstDropped(json(200, { items: [], next_cursor: null })));
    await expect(client.call(client.api.GET("/datasets"))).resolves.toEqual({ items: [], next_cursor: null });
    expect(seen.map((s) => s.method)).toEqual(["GET", "GET"]);
  });

  it("sends a direct upload cut off while its body was written again, with the same Idempotency-Key", async () => {
    const { seen, client } = await service(firstDropped(json(201, started), "drop-at-once"));
    const file = new File([new Uint8Array(8 * 1024 * 1024).fill(65)], "big.csv");
    await expect(client.upload(file)).resolves.toMatchObject({ datasetId: "d", jobId: "j", method: "direct" });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    expect(seen[1]!.bytes).toBeGreaterThan(file.size); // the whole form, file included, on the repeat
  });

  it("gives every create made through `api` an Idempotency-Key, the same on the repeat", async () => {
    const { seen, client } = await service(firstDropped(json(201, { id: "k", key: "sk_new" })));
    await client.call(client.api.POST("/api-keys", { body: { name: "ci" } }));
    expect(seen.map((s) => s.path)).toEqual(["/api-keys", "/api-keys"]);
    expect(seen[0]!.key).toBeTruthy();
    expect(seen[1]!.key).toBe(seen[0]!.key);
  });

  it("keeps the caller's Idempotency-Key", async () => {
    const { seen, client } = await service(firstDropped(json(202, { model: { id: "m" }, job_id: "t" })));
    await client.train({ model_name: "m", model_type: "prediction", dataset_id: "d", label_column: "y" } as never, { idempotencyKey: "mine-1" });
    expect(seen.map((s) => s.key)).toEqual(["mine-1", "mine-1"]);
  });

  it("sends no key with a POST that is safe to repeat (sync inference), and repeats it", async () => {
    const { seen, client } = await service(firstDropped(json(200, { job_id: "i", data: {} })));
    await client.infer("m", new File(["a\n1\n"], "rows.csv"));
    expect(seen.map((s) => s.key)).toEqual([undefined, undefined]);
  });

  it("does not repeat a sent POST that has no key and is not safe to repeat", async () => {
    const { seen, base } = await service(() => "drop");
    const make = () => new Request(`${base}/jobs/j/retry`, { method: "POST" });
    const error = await fetchRetrying(make, fetch, { backoffMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionFailedError);
    expect(error).toMatchObject({ sent: true, attempts: 1, message: expect.stringMatching(/not retried/) });
    expect(seen).toHaveLength(1);
  });

  it("sends any request again when the connection could not be opened (it surely never arrived)", async () => {
    const probe = await service(() => json(200, {}));
    const port = Number(new URL(probe.base).port);
    await new Promise((r) => servers.pop()!.close(r)); // nothing listens there now
    let calls = 0;
    const opening = (async (req: Request) => {
      if (++calls === 2) await service(() => json(200, { ok: true }), port);
      return fetch(req);
    }) as typeof fetch;
    const res = await fetchRetrying(() => new Request(`${probe.base}/jobs/j/retry`, { method: "POST" }), opening, { backoffMs: 1 });
    expect(res.status).toBe(200);
    expect(calls).toBe(2);
  });

  it("gives up after `unansweredRetries` with a ConnectionFailedError naming the attempts", async () => {
    const { seen, client } = await service(() => "drop");
    await expect(client.call(client.api.GET("/jobs"))).rejects.toMatchObject({ name: "ConnectionFailedError", sent: true, attempts: 4 });
    expect(seen).toHaveLength(4);
  });

  it("does not repeat an error answer (a 500 is an answer)", async () => {
    const { seen, client } = await service(() => json(500, { detail: "Internal error" }));
    await expect(client.call(client.api.GET("/jobs"))).rejects.toBeInstanceOf(ApiError);
    expect(seen).toHaveLength(1);
  });

  it("takes a repeated complete's 409 as done when the first one's answer was lost", async () => {
    let completes = 0;
    const { client } = await service((_n, req) => {
      if (req.url === "/datasets/upload") {
        const upload = {
          upload_url: `http://${req.headers.host}/put`,
          method: "PUT",
          headers: { "Content-Type": "text/csv" },
          expires_at: "2030-01-01T00:00:00Z",
        };
        const dataset = { id: "d", version_id: "v", version_number: 1, archived: false };
        return json(201, { upload, dataset, job_id: "j", status: "waiting_for_upload" });
      }
      if (req.url === "/put") return (res) => res.writeHead(200).end();
      return ++completes === 1 ? "drop" : json(409, { detail: "This upload is already completed." });
    });
    await expect(client.upload(new File(["a\n1\n"], "t.csv"), { signed: true })).resolves.toMatchObject({
      versionId: "v",
      jobId: "j",
      method: "signed",
    });
    expect(completes).toBe(2);
  });

  it("the CLI exits with the network code (4) after a ConnectionFailedError", () => {
    const error = new ConnectionFailedError("GET", "http://x/jobs", { kind: "lost", code: "ECONNRESET" }, 4, true, null);
    expect(fail(error)).toBe(4);
  });
});
