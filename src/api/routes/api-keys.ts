import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/key-admin";
import * as def from "../definitions/api-keys";
import { presentApiKey } from "../presenters/api-keys";
import { presentPage } from "../presenters/page";
import { apiRouter } from "../router";

export const apiKeyRoutes = apiRouter();

apiKeyRoutes.openapi(def.createApiKey, async (c) => {
  const created = await createApiKey(c.var.db, c.var.principal, c.req.valid("json").name);
  return c.json({ ...presentApiKey(created), key: created.key }, 201);
});

apiKeyRoutes.openapi(def.listApiKeys, async (c) =>
  c.json(presentPage(await listApiKeys(c.var.db, c.var.principal, c.req.valid("query")), presentApiKey), 200),
);

apiKeyRoutes.openapi(def.revokeApiKey, async (c) => {
  await revokeApiKey(c.var.db, c.var.principal, c.req.valid("param").api_key_id);
  return c.body(null, 204);
});
