import type { MiddlewareHandler } from "hono";
import { afterResponse } from "../core/after-response";
import { warmOrtBackend } from "../inference/ort-runtime";

/** Whether this isolate has started warming (module state: one isolate, one warm-up). */
let started = false;

/**
 * After the first response an isolate sends, whatever the request, bring the ONNX runtime up
 * (../inference/ort-runtime warmOrtBackend), so that the isolate's first prediction does not pay
 * the backend's start-up. A client that trains a model polls its job on the way: by the time the
 * model is ready, the backend is. The warm-up runs after the response, in waitUntil.
 */
export const warmRuntime: MiddlewareHandler = async (c, next) => {
  await next();
  if (started) return;
  started = true;
  c.executionCtx.waitUntil(afterResponse().then(warmOrtBackend));
};
