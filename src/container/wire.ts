/**
 * The wire between the Worker and the trainer, in one place: the job kinds the trainer runs, the
 * task of each, and every call the trainer makes back through the Worker's internal control
 * routes (their paths, bodies and answers). The route definitions (../api/definitions/internal)
 * validate requests with these schemas and the control client (./control-client) builds its calls
 * and reads the answers with them, so the two programs cannot drift apart unnoticed.
 *
 * Every control call names the job and the attempt token the trainer was handed: in the body of
 * a POST, as `?attempt=` otherwise. Bulk bytes (source files, frame parts, the frame a job reads)
 * go straight to and from R2 at presigned URLs when the Worker hands some out, else through routes.
 */
import { z } from "zod";
import { FAILURE_MESSAGE_MAX_CHARS, MAX_SEARCH_INSTANCES } from "../core/limits";
import { OUTPUT_FORMATS } from "../inference/output";
import { type JobType, progressReportSchema } from "../jobs/types";
import { MAX_FRAME_PARTS } from "../storage/frame-parts";
import { ARTIFACT_FILES } from "../storage/keys";

// ── Jobs the trainer runs ───────────────────────────────────────────────────────────────────────

/** The job kinds the trainer runs (the others run in the Worker). */
export const TRAINER_JOB_KINDS = ["train", "infer_batch", "dataset_ingest"] as const satisfies readonly JobType[];
export type TrainerJobKind = (typeof TRAINER_JOB_KINDS)[number];

/** What the Worker hands the trainer (`POST /jobs` on the trainer): the job and the attempt token to show on every call back. */
export const trainerAssignment = z.object({ job_id: z.uuid(), attempt: z.number().int().min(1) });
export type TrainerAssignment = z.infer<typeof trainerAssignment>;

/**
 * A trial of a job's model search (`POST /trials` on the trainer): the job and attempt it belongs
 * to, its number and what the search's engine sent (../ml/prediction/search/trial's TrialSpec).
 */
export const trialAssignment = trainerAssignment.extend({
  trial: z.number().int().min(0),
  /** Which send of the trial this instance runs: its calls carry it (durable/trial-state.ts TrialState.run). */
  run: z.number().int().min(1),
  spec: z.record(z.string(), z.unknown()),
});
export type TrialAssignment = z.infer<typeof trialAssignment>;

/**
 * The spec of a part of a batch inference cut into row ranges (../container/batch-parts), sent
 * the way a search sends a trial: rows [start, end) of the job's frame through its model version.
 */
export const batchPartSpec = z.object({
  kind: z.literal("batch_part"),
  start: z.number().int().min(0),
  end: z.number().int().min(1),
  model_version: z.object({ id: z.string(), version: z.number().int() }),
});
export type BatchPartSpec = z.infer<typeof batchPartSpec>;

/** A training: the job's input, as the train route wrote it. */
export const trainingTask = z.object({
  model_name: z.string(),
  version_number: z.number().int(),
  model_type: z.string(),
  label_column: z.string().nullable(),
  input_columns: z.array(z.string()).nullable(),
  params: z.record(z.string(), z.unknown()),
  /** Trainer instances a model search may run its trials on at once (the Worker's answer to `GET task`; absent: 1). */
  search_instances: z.number().int().min(1).max(MAX_SEARCH_INSTANCES).optional(),
});
export type TrainingTask = z.infer<typeof trainingTask>;

/** A batch inference over a stored dataset version: the model version fixed at creation, the answer's format. */
const batchTask = z.object({
  model_type: z.string().nullable(),
  output_type: z.enum(OUTPUT_FORMATS),
  model_version: z.object({ id: z.string(), version: z.number().int() }),
  /** Trainer instances a large batch may run its parts on at once (absent: 1, the whole table here). */
  instances: z.number().int().min(1).max(MAX_SEARCH_INSTANCES).optional(),
});
export type BatchTask = z.infer<typeof batchTask>;

/** An ingest of uploads too large for the Worker. */
const ingestTask = z.object({
  format: z.enum(["csv", "parquet"]),
  /** `url`: a presigned GET of the file straight from R2; without it the trainer reads file i from `sources/{i}`. */
  files: z.array(z.object({ filename: z.string(), bytes: z.number().int().min(0), url: z.string().optional() })),
  total_bytes: z.number().int().min(0),
});
export type IngestTask = z.infer<typeof ingestTask>;

const assigned = <K extends TrainerJobKind, T extends z.ZodType>(kind: K, task: T) => z.object({ kind: z.literal(kind), task });

/** A job's kind and its task. */
const assignedTask = z.discriminatedUnion("kind", [
  assigned("train", trainingTask),
  assigned("infer_batch", batchTask),
  assigned("dataset_ingest", ingestTask),
]);
export type AssignedTask = z.infer<typeof assignedTask>;
/** The answer of `GET task`: the job's kind and task, and the job and attempt they are for (the trainer reads the kind and task). */
export type TaskAnswer = AssignedTask & { job_id: string; attempt: number };
/** The task of one kind. */
export type TaskOf<K extends TrainerJobKind> = Extract<AssignedTask, { kind: K }>["task"];

// ── Bodies and answers of the control routes ───────────────────────────────────────────────────

const attempt = z.number().int().min(1);
/** `?attempt=` of the GET and PUT routes. */
export const attemptQuery = z.object({ attempt: z.coerce.number().int().min(1) });

/** Progress and heartbeat; answered `canceled: true` once the job was canceled (the trainer stops). */
const reportBody = progressReportSchema.extend({ attempt, rows_processed: z.number().int().min(0).optional() });
const reportAnswer = z.object({ canceled: z.boolean() });

/** The job's outcome, as the kind's runner made it. */
const succeedBody = z.object({ attempt, output: z.record(z.string(), z.unknown()) });
/** The trainer could not finish; `permanent`: retrying cannot help (bad input, bad data). */
const failBody = z.object({ attempt, message: z.string().min(1).max(FAILURE_MESSAGE_MAX_CHARS), permanent: z.boolean() });
const doneAnswer = z.object({ ok: z.boolean() });
/** The trainer is stopping (SIGTERM) before the attempt finished: the job is queued again at once, the attempt not counted as a failure. */
const handBackBody = z.object({ attempt, reason: z.string().min(1).max(FAILURE_MESSAGE_MAX_CHARS) });

/** Where to read the job's frame: a presigned GET straight from R2, or `url: null` (GET `frame`). */
const frameLocationAnswer = z.object({ url: z.string().nullable(), bytes: z.number().int().min(0) });

/**
 * An ingest stores its frame as an R2 multipart upload: begun, each part's URL asked for when the
 * part is ready (the frame is written while the file is read: its size is unknown at begin) and
 * PUT there (or to `frame/parts/{n}`), then completed, or aborted.
 */
const uploadId = z.string().min(1).max(1024);
const uploadedPart = z.object({ part_number: z.number().int().min(1), etag: z.string().min(1) });
export type UploadedPart = z.infer<typeof uploadedPart>;
const beginFrameUploadBody = z.object({ attempt });
const beginFrameUploadAnswer = z.object({ upload_id: z.string() });
const signFramePartBody = z.object({ attempt, upload_id: uploadId, part_number: z.number().int().min(1), bytes: z.number().int().min(0) });
const signFramePartAnswer = z.object({ url: z.string().nullable() });
export const framePartQuery = attemptQuery.extend({ upload_id: uploadId });
/** A trial's outcome is stored by the instance running one send of it (`?attempt=&run=`). */
export const trialOutcomeQuery = attemptQuery.extend({ run: z.coerce.number().int().min(1) });
const completeFrameUploadBody = z.object({
  attempt,
  upload_id: uploadId,
  bytes: z.number().int().min(0),
  parts: z.array(uploadedPart).min(1).max(MAX_FRAME_PARTS),
});
const completeFrameUploadAnswer = z.object({ bytes: z.number().int().min(0) });
const abortFrameUploadBody = z.object({ attempt, upload_id: uploadId });

/**
 * A search's trials (durable/trials.ts): the coordinator sends one, polls them all, closes the
 * search. A large batch's parts go the same routes (a part is a trial whose spec is a batchPartSpec).
 */
const startTrialBody = z.object({ attempt, trial: z.number().int().min(0), slot: z.number().int().min(0), spec: z.record(z.string(), z.unknown()) });
const trialView = z.object({
  trial: z.number().int(),
  status: z.enum(["queued", "running", "done", "failed", "canceled"]),
  message: z.string().nullable(),
  done: z.number().int().min(0).optional(),
});
const trialsAnswer = z.object({ trials: z.array(trialView) });
const closeSearchBody = z.object({ attempt });
/** The instance running a trial reports (`done`: a batch part's rows done; answered `stop: true` once the trial no longer runs), or says it failed. */
const run = z.number().int().min(1);
const trialBeatBody = z.object({ attempt, run, done: z.number().int().min(0).optional() });
const trialBeatAnswer = z.object({ stop: z.boolean() });
const failTrialBody = z.object({ attempt, run, message: z.string().min(1).max(FAILURE_MESSAGE_MAX_CHARS) });
/** The instance is stopping (SIGTERM) before its trial ended: the trial is sent again at once. */
const handBackTrialBody = z.object({ attempt, run });
/**
 * `{first}` of `results/pages/{first}`: the number of the first of the result pages in the body
 * (pages one per line: a JSON text holds no raw line break), written in one call.
 */
export const firstPageParam = z.coerce.number().int().min(0);
/** `{trial}` of the trial routes. */
export const trialParam = z.coerce.number().int().min(0);

/** A model version's files a training writes and a batch inference reads. */
export const artifactFile = z.enum(Object.values(ARTIFACT_FILES) as [string, ...string[]]);

// ── The routes ──────────────────────────────────────────────────────────────────────────────────

/**
 * Every control route: method and path under `/internal/jobs/{id}/`; a JSON route's request body
 * (`attempt` included: the client adds it) and its answer. A GET or PUT carries the attempt as
 * `?attempt=`; their bodies are bytes (a file, a part, the representation) and so are most of
 * their answers.
 */
export const CONTROL_ROUTES = {
  task: { method: "get", path: "task", answer: assignedTask },
  frame: { method: "get", path: "frame" },
  frameLocation: { method: "get", path: "frame/location", answer: frameLocationAnswer },
  readSource: { method: "get", path: "sources/{index}" },
  writePreview: { method: "put", path: "preview" },
  beginFrameUpload: { method: "post", path: "frame/uploads", body: beginFrameUploadBody, answer: beginFrameUploadAnswer },
  signFramePart: { method: "post", path: "frame/part-url", body: signFramePartBody, answer: signFramePartAnswer },
  writeFramePart: { method: "put", path: "frame/parts/{part}", answer: uploadedPart },
  completeFrameUpload: { method: "post", path: "frame/complete", body: completeFrameUploadBody, answer: completeFrameUploadAnswer },
  abortFrameUpload: { method: "post", path: "frame/abort", body: abortFrameUploadBody, answer: doneAnswer },
  readRepresentation: { method: "get", path: "representation" },
  writeRepresentation: { method: "put", path: "representation" },
  writeArtifact: { method: "put", path: "artifacts/{file}" },
  readArtifact: { method: "get", path: "artifacts/{file}" },
  writeResult: { method: "put", path: "results/{file}" },
  writeResultPages: { method: "put", path: "results/pages/{first}" },
  report: { method: "post", path: "report", body: reportBody, answer: reportAnswer },
  succeed: { method: "post", path: "succeed", body: succeedBody, answer: doneAnswer },
  fail: { method: "post", path: "fail", body: failBody, answer: doneAnswer },
  handBack: { method: "post", path: "hand-back", body: handBackBody, answer: doneAnswer },
  writeSearchData: { method: "put", path: "search/data" },
  readSearchData: { method: "get", path: "search/data" },
  startTrial: { method: "post", path: "search/trials", body: startTrialBody, answer: doneAnswer },
  listTrials: { method: "get", path: "search/trials", answer: trialsAnswer },
  closeSearch: { method: "post", path: "search/close", body: closeSearchBody, answer: doneAnswer },
  trialBeat: { method: "post", path: "search/trials/{trial}/beat", body: trialBeatBody, answer: trialBeatAnswer },
  failTrial: { method: "post", path: "search/trials/{trial}/fail", body: failTrialBody, answer: doneAnswer },
  handBackTrial: { method: "post", path: "search/trials/{trial}/hand-back", body: handBackTrialBody, answer: doneAnswer },
  writeTrialOutcome: { method: "put", path: "search/trials/{trial}/outcome" },
  readTrialOutcome: { method: "get", path: "search/trials/{trial}/outcome" },
} as const satisfies Record<string, { method: "get" | "put" | "post"; path: string; body?: z.ZodObject; answer?: z.ZodType }>;
export type ControlRoute = keyof typeof CONTROL_ROUTES;
/** The routes with a JSON body (POST). */
export type JsonRoute = { [R in ControlRoute]: (typeof CONTROL_ROUTES)[R] extends { body: z.ZodObject } ? R : never }[ControlRoute];
/** The routes whose answer is JSON. */
export type AnsweringRoute = { [R in ControlRoute]: (typeof CONTROL_ROUTES)[R] extends { answer: z.ZodType } ? R : never }[ControlRoute];
/** What the client sends on a JSON route: its body without the attempt, which the client adds. */
export type BodyOf<R extends JsonRoute> = Omit<z.input<(typeof CONTROL_ROUTES)[R]["body"]>, "attempt">;
/** What a route answers, as read. */
export type AnswerOf<R extends AnsweringRoute> = z.output<(typeof CONTROL_ROUTES)[R]["answer"]>;

/** The routes' prefix: every call is about one job. */
const CONTROL_PREFIX = "/internal/jobs/{id}/";

/** A route's path for the route definitions (`/internal/jobs/{id}/frame/parts/{part}`). */
export const controlRoutePath = (route: ControlRoute) => `${CONTROL_PREFIX}${CONTROL_ROUTES[route].path}`;

/** The local trainer process announces that it started: the jobs it was running are lost. */
export const TRAINER_STARTED_PATH = "/internal/trainer/started";
export const trainerStartedAnswer = z.object({ restarted: z.number().int().min(0) });
