/**
 * A model's status, aggregated from its versions; the one definition behind both the TypeScript
 * that presents a model and the SQL that filters lists by status:
 * - the **current** version is the latest one that was not canceled (else the latest);
 * - its status maps to the model's: queued → queued, processing → processing, ready → ready,
 *   failed and canceled → failed; a model with no version yet is queued.
 */
import { getTableName, type SQL, sql } from "drizzle-orm";
import { models, modelVersions } from "../db/schema";
import type { ModelVersionStatus } from "../db/version-statuses";

export const MODEL_STATUSES = ["queued", "processing", "ready", "failed"] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/** Version status → model status. Every model version status must be mapped, or this does not compile. */
const STATUS_OF_VERSION: Record<ModelVersionStatus, ModelStatus> = {
  queued: "queued",
  processing: "processing",
  ready: "ready",
  failed: "failed",
  canceled: "failed",
};
/** Versions with this status are never current while another version exists. */
const NEVER_CURRENT: ModelVersionStatus = "canceled";
const WITHOUT_VERSION: ModelStatus = "queued";

interface VersionLike {
  status: ModelVersionStatus;
  version: number;
}

/** The current version among a model's versions, given newest first. */
export function currentVersion<V extends VersionLike>(versionsNewestFirst: V[]): V | undefined {
  return versionsNewestFirst.find((v) => v.status !== NEVER_CURRENT) ?? versionsNewestFirst[0];
}

export function modelStatus(current: VersionLike | undefined): ModelStatus {
  // The column's type is not checked by SQLite: a stored status outside the list (none today)
  // reads as processing, as in the SQL below, rather than inventing one.
  return current ? (STATUS_OF_VERSION[current.status] ?? "processing") : WITHOUT_VERSION;
}

/** The same rule as a correlated SQL expression over `models`, for filters. */
export function modelStatusSql(): SQL {
  const cases = Object.entries(STATUS_OF_VERSION).map(([from, to]) => sql`when ${from} then ${to}`);
  // Qualified by hand: drizzle writes a bare "id" in a select list, which the subquery would
  // take for its own table's id.
  const modelId = sql.raw(`"${getTableName(models)}"."id"`);
  return sql`coalesce((
    select case mv.status ${sql.join(cases, sql` `)} else 'processing' end
    from ${modelVersions} mv where mv.model_id = ${modelId}
    order by (mv.status = ${NEVER_CURRENT}), mv.version desc limit 1
  ), ${WITHOUT_VERSION})`;
}
