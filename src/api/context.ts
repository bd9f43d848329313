import type { Db } from "../db/client";

/** Who is calling: the API key and the organization it belongs to. */
export interface Principal {
  orgId: string;
  apiKeyId: string;
  userId: string | null;
  /** Display name for `actor_name`: the user's name when the key has one, else the key's name. */
  actorName: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: { principal: Principal; db: Db };
}
