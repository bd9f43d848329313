/**
 * A job cannot succeed because of its input (a bad file, a missing column, data gone): it fails
 * at once with this message, without retries. Any other error is taken as transient and retried.
 */
export class JobInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobInputError";
  }
}

/** Thrown inside a job's work when the job was canceled meanwhile: stop, write nothing more. */
export class JobCanceledError extends Error {
  constructor() {
    super("job canceled");
    this.name = "JobCanceledError";
  }
}

/**
 * Errors that retrying cannot fix (bad input, bad data), by name so that the check also holds
 * across bundles and runtimes (the queue consumer and the trainer process alike): the job fails
 * at once with the error's message.
 */
const PERMANENT_ERRORS: ReadonlySet<string> = new Set(["JobInputError", "IngestError", "MlInputError"]);

export function isPermanentError(e: unknown): e is Error {
  return e instanceof Error && PERMANENT_ERRORS.has(e.name);
}
