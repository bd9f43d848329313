/**
 * Cold start: an isolate's first response, whatever the request, is followed by bringing the ONNX
 * runtime's backend up, so the first prediction does not pay it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import worker from "../../src/index";
import { ortRuntimeStatus } from "../../src/inference/ort-runtime";

it("brings ort's wasm backend up after the isolate's first response, once", async () => {
  // nothing in this file has created a session yet
  expect(ortRuntimeStatus().precompiledInstantiations).toBe(0);
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request("https://api.test/health"), env, ctx);
  expect(res.status).toBe(200);
  await waitOnExecutionContext(ctx);
  expect(ortRuntimeStatus()).toEqual({ configured: true, precompiledInstantiations: 1 });

  const again = createExecutionContext();
  await worker.fetch(new Request("https://api.test/health"), env, again);
  await waitOnExecutionContext(again);
  expect(ortRuntimeStatus().precompiledInstantiations).toBe(1);
});
