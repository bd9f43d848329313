import type { Principal } from "../auth/principal";
import type { Db } from "../db/client";

export interface AppEnv {
  Bindings: Env;
  Variables: { principal: Principal; db: Db };
}
