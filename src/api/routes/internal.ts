/**
 * The Worker's internal control routes: the only way the trainer reads data, writes artifacts
 * and reports progress. Authenticated by the internal secret, never by an API key.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerToken, sameSecret } from "../../auth/secrets";
import { LengthRequired, NotFound } from "../../core/errors";
import { createDb } from "../../db/client";
import type { JsonObject } from "../../jobs/types";
import * as batches from "../../trainer-control/batch-control";
import * as control from "../../trainer-control/control-service";
import * as frames from "../../trainer-control/frame-upload-control";
import * as ingests from "../../trainer-control/ingest-control";
import * as searches from "../../trainer-control/search-control";
import { searchInstances } from "../../trainer-control/trainer-client";
import { restartLostJobs } from "../../trainer-control/trainer-restart";
import * as trainings from "../../trainer-control/training-control";
import type { AppEnv } from "../context";
import * as def from "../definitions/internal";
import { s3ConfigOf } from "../deps";
import { errorResponse, notAuthenticated } from "../errors";
import { answer405, apiRouter } from "../router";

const requireInternalSecret: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.env.INTERNAL_SECRET ?? "";
  if (!secret || !(await sameSecret(bearerToken(c.req.header("Authorization")) ?? "", secret))) throw notAuthenticated();
  c.set("db", createDb(c.env.DB));
  await next();
};

const deps = (c: Context<AppEnv>): control.ControlDeps => ({
  db: c.var.db,
  bucket: c.env.BUCKET,
  jobs: c.env.JOB,
  queue: c.env.JOBS_QUEUE,
  // The address the trainer called: for "local", the S3 endpoint on that same host.
  s3: s3ConfigOf(c.env, new URL(c.req.url).origin),
  searchInstances: searchInstances(c.env),
});

/** The control routes, for the public app (without containers) and the container's outbound handler. */
export const internalApp = apiRouter();

internalApp.use(answer405(internalApp));
internalApp.use("/internal/*", requireInternalSecret);

internalApp.openapi(def.task, async (c) => c.json(await control.taskOf(deps(c), c.req.valid("param").id, c.req.valid("query").attempt)));

internalApp.openapi(def.frame, async (c) => {
  const obj = await control.readFrame(deps(c), c.req.valid("param").id, c.req.valid("query").attempt);
  return new Response(obj.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(obj.size) } });
});

internalApp.openapi(def.frameLocation, async (c) =>
  c.json(await control.frameLocation(deps(c), c.req.valid("param").id, c.req.valid("query").attempt)),
);

internalApp.openapi(def.readSource, async (c) => {
  const { id, index } = c.req.valid("param");
  const { range } = c.req.valid("header");
  const asked = range?.slice("bytes=".length).split("-").map(Number) as [number, number] | undefined;
  const source = await ingests.readSource(deps(c), id, c.req.valid("query").attempt, index, asked && { first: asked[0], last: asked[1] });
  const headers: Record<string, string> = { "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes" };
  if (!source.range) return new Response(source.body, { headers });
  const { first, last } = source.range;
  headers["Content-Range"] = `bytes ${first}-${last}/${source.size}`;
  headers["Content-Length"] = String(last - first + 1);
  return new Response(source.body, { status: 206, headers });
});

/** A streamed body of announced length (R2 stores a stream only when its length is known). */
function sizedBody(c: Context<AppEnv>): { body: ReadableStream<Uint8Array>; length: number } {
  const length = Number(c.req.header("Content-Length"));
  if (!c.req.raw.body || !c.req.header("Content-Length") || !Number.isSafeInteger(length)) {
    throw new LengthRequired("Content-Length header required.");
  }
  return { body: c.req.raw.body, length };
}

internalApp.openapi(def.writePreview, async (c) => {
  await ingests.writePreview(deps(c), c.req.valid("param").id, c.req.valid("query").attempt, sizedBody(c).body);
  return c.body(null, 204);
});

internalApp.openapi(def.beginFrameUpload, async (c) => {
  return c.json(await frames.beginFrameUpload(deps(c), c.req.valid("param").id, c.req.valid("json").attempt));
});

internalApp.openapi(def.signFramePart, async (c) => {
  const { attempt, upload_id, part_number, bytes } = c.req.valid("json");
  return c.json(await frames.signFramePart(deps(c), c.req.valid("param").id, attempt, upload_id, part_number, bytes));
});

internalApp.openapi(def.writeFramePart, async (c) => {
  const { id, part } = c.req.valid("param");
  const { attempt, upload_id } = c.req.valid("query");
  const { body, length } = sizedBody(c);
  return c.json(await frames.putFramePart(deps(c), id, attempt, upload_id, part, length, body));
});

internalApp.openapi(def.completeFrameUpload, async (c) => {
  const { attempt, upload_id, parts, bytes } = c.req.valid("json");
  return c.json(await frames.completeFrameUpload(deps(c), c.req.valid("param").id, attempt, upload_id, parts, bytes));
});

internalApp.openapi(def.abortFrameUpload, async (c) => {
  const { attempt, upload_id } = c.req.valid("json");
  return c.json(await frames.abortFrameUpload(deps(c), c.req.valid("param").id, attempt, upload_id));
});

internalApp.openapi(def.readRepresentation, async (c) => {
  const obj = await trainings.readRepresentation(deps(c), c.req.valid("param").id, c.req.valid("query").attempt);
  if (!obj) return c.json({ detail: "No representation is stored for this dataset version yet." }, 404);
  return new Response(obj.body, { headers: { "Content-Type": "application/json" } });
});

internalApp.openapi(def.writeRepresentation, async (c) => {
  await trainings.writeRepresentation(deps(c), c.req.valid("param").id, c.req.valid("query").attempt, await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalApp.openapi(def.writeArtifact, async (c) => {
  const { id, file } = c.req.valid("param");
  await trainings.writeArtifact(deps(c), id, c.req.valid("query").attempt, file, await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalApp.openapi(def.readArtifact, async (c) => {
  const { id, file } = c.req.valid("param");
  const obj = await batches.readArtifact(deps(c), id, c.req.valid("query").attempt, file);
  return new Response(obj.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(obj.size) } });
});

internalApp.openapi(def.writeResult, async (c) => {
  const { id, file } = c.req.valid("param");
  await batches.writeResult(deps(c), id, c.req.valid("query").attempt, file, await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalApp.openapi(def.writeResultPages, async (c) => {
  const { id, first } = c.req.valid("param");
  await batches.writeResultPages(deps(c), id, c.req.valid("query").attempt, first, await c.req.text());
  return c.body(null, 204);
});

internalApp.openapi(def.writeSearchData, async (c) => {
  await searches.writeSearchData(deps(c), c.req.valid("param").id, c.req.valid("query").attempt, sizedBody(c).body);
  return c.body(null, 204);
});

internalApp.openapi(def.readSearchData, async (c) => {
  const obj = await searches.readSearchData(deps(c), c.req.valid("param").id, c.req.valid("query").attempt);
  return new Response(obj.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(obj.size) } });
});

internalApp.openapi(def.startTrial, async (c) => {
  const { attempt, trial, slot, spec } = c.req.valid("json");
  return c.json(await searches.startTrial(deps(c), c.req.valid("param").id, attempt, trial, slot, spec as JsonObject));
});

internalApp.openapi(def.listTrials, async (c) => c.json(await searches.listTrials(deps(c), c.req.valid("param").id, c.req.valid("query").attempt)));

internalApp.openapi(def.closeSearch, async (c) => c.json(await searches.closeSearch(deps(c), c.req.valid("param").id, c.req.valid("json").attempt)));

internalApp.openapi(def.trialBeat, async (c) => {
  const { id, trial } = c.req.valid("param");
  const { attempt, run, done } = c.req.valid("json");
  return c.json(await searches.trialBeat(deps(c), id, attempt, trial, run, done));
});

internalApp.openapi(def.handBackTrial, async (c) => {
  const { id, trial } = c.req.valid("param");
  const { attempt, run } = c.req.valid("json");
  return c.json(await searches.handBackTrial(deps(c), id, attempt, trial, run));
});

internalApp.openapi(def.failTrial, async (c) => {
  const { id, trial } = c.req.valid("param");
  const { attempt, run, message } = c.req.valid("json");
  return c.json(await searches.failTrial(deps(c), id, attempt, trial, run, message));
});

internalApp.openapi(def.writeTrialOutcome, async (c) => {
  const { id, trial } = c.req.valid("param");
  const { attempt, run } = c.req.valid("query");
  await searches.writeTrialOutcome(deps(c), id, attempt, trial, run, await c.req.arrayBuffer());
  return c.body(null, 204);
});

internalApp.openapi(def.readTrialOutcome, async (c) => {
  const { id, trial } = c.req.valid("param");
  const obj = await searches.readTrialOutcome(deps(c), id, c.req.valid("query").attempt, trial);
  return new Response(obj.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(obj.size) } });
});

internalApp.openapi(def.report, async (c) => {
  const { attempt, ...report } = c.req.valid("json");
  return c.json(await control.reportProgress(deps(c), c.req.valid("param").id, attempt, report));
});

internalApp.openapi(def.succeed, async (c) => {
  const body = c.req.valid("json");
  return c.json(await control.succeed(deps(c), c.req.valid("param").id, body.attempt, body.output));
});

internalApp.openapi(def.fail, async (c) => {
  const { attempt, ...failure } = c.req.valid("json");
  return c.json(await control.fail(deps(c), c.req.valid("param").id, attempt, failure));
});

internalApp.openapi(def.handBack, async (c) => {
  const { attempt, reason } = c.req.valid("json");
  return c.json(await control.handBack(deps(c), c.req.valid("param").id, attempt, reason));
});

internalApp.openapi(def.trainerStarted, async (c) => c.json({ restarted: await restartLostJobs({ db: c.var.db, jobs: c.env.JOB }) }, 200));

internalApp.onError((err, c) => errorResponse(c, err));
internalApp.notFound((c) => errorResponse(c, new NotFound()));
