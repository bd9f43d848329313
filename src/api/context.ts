import type { Principal } from "../auth/principal";
import type { Db } from "../db/client";

export interface AppEnv {
  Bindings: Env;
  /** db: the primary; replica: reads that may come from the nearest read replica (see createReplicaDb). */
  /** requestId: the answer's X-Request-Id; jobId: the job a route made, for the log line (./request-log). */
  Variables: { principal: Principal; db: Db; replica: () => Db; requestId: string; jobId?: string };
}
