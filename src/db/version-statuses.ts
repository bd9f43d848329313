/**
 * The statuses of a dataset version and of a model version: the one list behind their D1 columns,
 * the job → version rule (jobs/effects.ts), the model status rule (models/status.ts) and the API
 * text. The rules are typed by it: a model version status added here does not compile until the
 * model status rule maps it, and one renamed or removed until no rule or comparison uses it.
 *
 * Kept in db/, the lowest layer that needs it (the columns), so that jobs/, models/ and api/ can
 * import it too.
 */

/** A model version's statuses: it starts queued (its training job is queued at once). */
export const MODEL_VERSION_STATUSES = ["queued", "processing", "ready", "failed", "canceled"] as const;
export type ModelVersionStatus = (typeof MODEL_VERSION_STATUSES)[number];

/**
 * Every version status, in the order the API lists them. A dataset version can have each: it
 * waits for its file when uploaded through a signed URL, until the upload is completed. The model
 * version statuses are this list without that first one, by construction.
 */
export const VERSION_STATUSES = ["waiting_for_upload", ...MODEL_VERSION_STATUSES] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

const OF_MODEL_VERSIONS: ReadonlySet<VersionStatus> = new Set(MODEL_VERSION_STATUSES);
/** Whether a model version can have this status (every status but waiting_for_upload). */
export const isModelVersionStatus = (s: VersionStatus): s is ModelVersionStatus => OF_MODEL_VERSIONS.has(s);
