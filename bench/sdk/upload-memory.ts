/**
 * Peak memory of the SDK's streamed upload (sdk/src/stream-fetch.ts, over node:http) against
 * Node's fetch, sending a file-backed Blob (what `tabular upload` and `openAsBlob` give) as a
 * signed PUT does, to a server in another process. Each sender runs in a fresh process (RSS
 * does not shrink after a run).
 *
 * Run: npx tsx bench/sdk/upload-memory.ts [--mb 1024]
 * Results: bench/sdk/RESULTS.md
 */
import { execFileSync, fork } from "node:child_process";
import { openAsBlob, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { streamingFetch } from "../../sdk/src/stream-fetch";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

async function serve(): Promise<void> {
  const server = createServer(async (req, res) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    res.end(String(bytes));
  });
  server.listen(0, "127.0.0.1", () => process.send?.((server.address() as { port: number }).port));
}

async function send(impl: string, path: string, port: number): Promise<void> {
  const blob = await openAsBlob(path);
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const req = new Request(`http://127.0.0.1:${port}/put`, {
    method: "PUT",
    headers: { "Content-Length": String(blob.size) },
    body: blob.stream(),
    duplex: "half",
  } as RequestInit);
  const received = await (await (impl === "fetch" ? fetch(req) : streamingFetch(req))).text();
  clearInterval(timer);
  const name = impl === "fetch" ? "Node's fetch" : "SDK streamingFetch";
  const s = (performance.now() - t0) / 1000;
  console.log(
    `${name}: ${blob.size} bytes sent, ${received} received, ${s.toFixed(1)} s; peak RSS ${Math.round(peak / 2 ** 20)} MiB (${Math.round(before / 2 ** 20)} before)`,
  );
}

if (process.argv.includes("--serve")) await serve();
else if (arg("--impl")) await send(arg("--impl")!, arg("--file")!, Number(arg("--port")));
else {
  const mb = Number(arg("--mb") ?? 1024);
  const path = join(tmpdir(), `upload-memory-${process.pid}.bin`);
  const chunk = new Uint8Array(1024 * 1024).fill(97);
  writeFileSync(path, "");
  for (let i = 0; i < mb; i++) writeFileSync(path, chunk, { flag: "a" });
  const server = fork(import.meta.filename, ["--serve"], { execArgv: ["--import", "tsx"] });
  const port = await new Promise<number>((r) => server.once("message", (m) => r(Number(m))));
  console.log(`Node ${process.version}, ${mb} MiB file`);
  for (const impl of ["fetch", "stream"]) {
    const out = execFileSync(process.execPath, ["--import", "tsx", import.meta.filename, "--impl", impl, "--file", path, "--port", String(port)]);
    process.stdout.write(out);
  }
  server.kill();
  rmSync(path);
}
