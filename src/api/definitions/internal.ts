/**
 * The trainer's control routes as route definitions, built from the wire contract
 * (../../container/wire): validated from its schemas like every route, but hidden from the public
 * document (in production only the trainer container reaches them, from inside the Worker).
 */
import { createRoute, z } from "@hono/zod-openapi";
import * as wire from "../../container/wire";
import { internalJsonBody } from "../request-body";
import { jsonRequest } from "./parts";

const params = z.object({ id: z.uuid() });
const ok = { 200: { description: "Done" } };
const path = wire.controlRoutePath;

type Route = wire.ControlRoute;
type PutOrGet = { [R in Route]: (typeof wire.CONTROL_ROUTES)[R]["method"] extends "post" ? never : R }[Route];
const method = (route: Route) => wire.CONTROL_ROUTES[route].method;

/** A GET or PUT route: bytes in or out, the attempt in the query. */
const bytesRoute = (route: PutOrGet) =>
  createRoute({ hide: true, method: method(route), path: path(route), request: { params, query: wire.attemptQuery }, responses: ok });
/** A POST route: its JSON body validated by the wire's schema for it (`body` is `CONTROL_ROUTES[route].body`). */
const jsonRoute = <B extends z.ZodType>(route: wire.JsonRoute, body: B) =>
  createRoute({
    hide: true,
    method: "post",
    path: path(route),
    middleware: [internalJsonBody] as const,
    request: { params, body: jsonRequest(body) },
    responses: ok,
  });
const routes = wire.CONTROL_ROUTES;
/** A GET or PUT route that names one of the job's files. */
const fileRoute = (route: PutOrGet) =>
  createRoute({
    hide: true,
    method: method(route),
    path: path(route),
    request: { params: params.extend({ file: z.string() }), query: wire.attemptQuery },
    responses: ok,
  });

export const task = bytesRoute("task");
export const frame = bytesRoute("frame");
export const frameLocation = bytesRoute("frameLocation");
/** An ingest job writes the version's preview (streamed; Content-Length required); its frame, in parts (below). */
export const writePreview = bytesRoute("writePreview");
export const beginFrameUpload = jsonRoute("beginFrameUpload", routes.beginFrameUpload.body);
export const signFramePart = jsonRoute("signFramePart", routes.signFramePart.body);
export const writeFramePart = createRoute({
  hide: true,
  method: method("writeFramePart"),
  path: path("writeFramePart"),
  request: { params: params.extend({ part: z.coerce.number().int().min(1) }), query: wire.framePartQuery },
  responses: ok,
});
export const completeFrameUpload = jsonRoute("completeFrameUpload", routes.completeFrameUpload.body);
export const abortFrameUpload = jsonRoute("abortFrameUpload", routes.abortFrameUpload.body);
export const readRepresentation = bytesRoute("readRepresentation");
export const writeRepresentation = bytesRoute("writeRepresentation");
/** A training job writes its model version's artifact files; a batch inference job reads them. */
export const writeArtifact = fileRoute("writeArtifact");
export const readArtifact = fileRoute("readArtifact");
/** An ingest job's uploaded files, by index; `Range: bytes=first-last` for a part of one (206). */
export const readSource = createRoute({
  hide: true,
  method: method("readSource"),
  path: path("readSource"),
  request: {
    params: params.extend({ index: z.coerce.number().int().min(0) }),
    query: wire.attemptQuery,
    // One range, both ends given: all the trainer asks for (a Parquet file's footer).
    headers: z.object({
      range: z
        .string()
        .regex(/^bytes=\d{1,15}-\d{1,15}$/, "Expected bytes=first-last")
        .optional(),
    }),
  },
  responses: ok,
});
/** A batch inference job's result files (their names: ../../storage/keys). */
export const writeResult = fileRoute("writeResult");
/** Many of its JSON result pages at once (one a line), from page `{first}` on. */
export const writeResultPages = createRoute({
  hide: true,
  method: method("writeResultPages"),
  path: path("writeResultPages"),
  request: { params: params.extend({ first: wire.firstPageParam }), query: wire.attemptQuery },
  responses: ok,
});
export const report = jsonRoute("report", routes.report.body);
export const succeed = jsonRoute("succeed", routes.succeed.body);
export const fail = jsonRoute("fail", routes.fail.body);
export const handBack = jsonRoute("handBack", routes.handBack.body);

/** The (local) trainer process announces that it started: the jobs it was running are lost. */
export const trainerStarted = createRoute({ hide: true, method: "post", path: wire.TRAINER_STARTED_PATH, responses: ok });

// ── A model search's trials on several trainer instances (../../trainer-control/search-control) ──

/** A route about one trial: `{trial}` in the path. */
const trialParams = params.extend({ trial: wire.trialParam });
const trialBytesRoute = <Q extends z.ZodObject>(route: "writeTrialOutcome" | "readTrialOutcome", query: Q) =>
  createRoute({ hide: true, method: method(route), path: path(route), request: { params: trialParams, query }, responses: ok });
const trialJsonRoute = <B extends z.ZodType>(route: "trialBeat" | "failTrial" | "handBackTrial", body: B) =>
  createRoute({
    hide: true,
    method: "post",
    path: path(route),
    middleware: [internalJsonBody] as const,
    request: { params: trialParams, body: jsonRequest(body) },
    responses: ok,
  });

/** The coordinator stores the search's rows (streamed; Content-Length required); each trial's instance reads them. */
export const writeSearchData = bytesRoute("writeSearchData");
export const readSearchData = bytesRoute("readSearchData");
export const startTrial = jsonRoute("startTrial", routes.startTrial.body);
export const listTrials = bytesRoute("listTrials");
export const closeSearch = jsonRoute("closeSearch", routes.closeSearch.body);
export const trialBeat = trialJsonRoute("trialBeat", routes.trialBeat.body);
export const failTrial = trialJsonRoute("failTrial", routes.failTrial.body);
export const handBackTrial = trialJsonRoute("handBackTrial", routes.handBackTrial.body);
export const writeTrialOutcome = trialBytesRoute("writeTrialOutcome", wire.trialOutcomeQuery);
export const readTrialOutcome = trialBytesRoute("readTrialOutcome", wire.attemptQuery);
