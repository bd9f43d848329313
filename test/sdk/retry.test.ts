/** The SDK retries 429s as Retry-After says, and hands every other answer back as it came. */
import { describe, expect, it } from "vitest";
import { TabularClient } from "../../sdk/src/index";
import { fetchRetrying, retryAfterMs } from "../../sdk/src/retry";

function scripted(statuses: number[], retryAfter = "0", scope = "key") {
  const seen: number[] = [];
  const impl = (async (req: Request) => {
    seen.push(Date.now());
    await req.text(); // a body can be read once per attempt: each attempt must bring its own
    const status = statuses.shift() ?? 200;
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (status === 429) Object.assign(headers, { "Retry-After": retryAfter, "RateLimit-Scope": scope });
    return new Response(JSON.stringify(status === 200 ? { items: [], next_cursor: null } : { detail: "Rate limit exceeded" }), { status, headers });
  }) as typeof fetch;
  return { impl, seen };
}

describe("retries on 429", () => {
  it("waits Retry-After seconds and tries again, with the body each time", async () => {
    const { impl, seen } = scripted([429, 429, 200], "0.05");
    const res = await fetchRetrying(() => new Request("http://x/", { method: "POST", body: "abc" }), impl);
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(seen[2]! - seen[0]!).toBeGreaterThanOrEqual(90);
  });

  it("gives up after `retries` and answers the 429, which the client throws with its detail", async () => {
    const { impl, seen } = scripted([429, 429, 429, 429]);
    const c = new TabularClient({ baseUrl: "http://x", apiKey: "sk_test", fetch: impl, retry: { retries: 2 } });
    await expect(c.call(c.api.GET("/datasets"))).rejects.toMatchObject({ status: 429, detail: "Rate limit exceeded" });
    expect(seen).toHaveLength(3);
  });

  it("the typed client goes through it (a POST with a JSON body retried)", async () => {
    const { impl, seen } = scripted([429, 200]);
    const c = new TabularClient({ baseUrl: "http://x", apiKey: "sk_test", fetch: impl });
    await expect(c.call(c.api.POST("/api-keys", { body: { name: "k" } }))).resolves.toEqual({ items: [], next_cursor: null });
    expect(seen).toHaveLength(2);
  });

  it("does not retry a 429 for failed authentications (the key is wrong; waiting would not help)", async () => {
    const { impl, seen } = scripted([429, 200], "0", "address");
    const res = await fetchRetrying(() => new Request("http://x/"), impl);
    expect(res.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("10")).toBe(10_000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(retryAfterMs("soon")).toBeNull();
  });
});
