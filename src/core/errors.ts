/**
 * What can go wrong for a caller, said in the service's own terms. Services throw these and know
 * nothing of HTTP; `api/errors.ts` alone turns them into responses (status, `detail`, headers).
 */
export abstract class DomainError extends Error {}

/** The resource does not exist, or belongs to another organization (never told apart). */
export class NotFound extends DomainError {
  constructor(message = "Not found") {
    super(message);
  }
}

/** The resource is in a state that does not allow the request (retry of a running job, …). */
export class Conflict extends DomainError {}

/** The caller may not do this (an expired or forged upload token, …). */
export class Forbidden extends DomainError {
  constructor(message = "Forbidden") {
    super(message);
  }
}

/** The request cannot be understood as a whole (a malformed body, a header that contradicts what was declared). */
export class BadRequest extends DomainError {}

/** A body whose length must be declared up front (a signed upload goes to storage as it arrives). */
export class LengthRequired extends DomainError {}

/** A file of a kind the service does not read. */
export class UnsupportedMediaType extends DomainError {}

/** Input over a limit; `limit` is the bound that was passed (bytes or cells, as the message says). */
export class TooLarge extends DomainError {
  constructor(
    message: string,
    readonly limit: number,
  ) {
    super(message);
  }
}

/** One thing wrong with one field of the input; `path` is the field's place in the request body. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
  /** A short machine-readable kind: missing, value_error, enum, less_than_equal, … */
  type: string;
  input: unknown;
  ctx?: Record<string, unknown>;
  /** Where the field is, when not in the body: a path parameter, a query parameter or a header. */
  part?: "path" | "query" | "header";
}

/** Input that is well-formed but not acceptable, field by field. */
export class InvalidInput extends DomainError {
  constructor(readonly issues: FieldIssue[]) {
    super(issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  }

  /** The common case: one field, one message. */
  static field(path: (string | number)[], message: string, input: unknown, type = "value_error"): InvalidInput {
    return new InvalidInput([{ path, message, type, input: input ?? null }]);
  }

  /** A path parameter that names something of the wrong kind (a model that is not causal, ...). */
  static pathParam(name: string, message: string, input: unknown): InvalidInput {
    return new InvalidInput([{ path: [name], message, type: "value_error", input: input ?? null, part: "path" }]);
  }

  /** A query parameter whose value the schema accepts but the service cannot (a stale cursor, ...). */
  static queryParam(name: string, message: string, input: unknown): InvalidInput {
    return new InvalidInput([{ path: [name], message, type: "value_error", input: input ?? null, part: "query" }]);
  }
}
