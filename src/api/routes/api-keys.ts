import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/key-admin";
import * as def from "../definitions/api-keys";
import { idempotent, type StoredResponse } from "../idempotency";
import { locationOf } from "../locations";
import { presentApiKey } from "../presenters/api-keys";
import { presentPage } from "../presenters/page";
import { apiRouter } from "../router";

export const apiKeyRoutes = apiRouter();

type Created = ReturnType<typeof presentApiKey> & { key: string };

/** What a repeated Idempotency-Key gets back: the key without its secret, which is never stored. */
const withoutSecret = ({ body: { key: _secret, ...rest } }: StoredResponse<Created>): StoredResponse<ReturnType<typeof presentApiKey>> => ({
  status: 200,
  body: rest,
});

apiKeyRoutes.openapi(def.createApiKey, async (c) => {
  const body = c.req.valid("json");
  const res = await idempotent(
    c.var.db,
    c.var.principal,
    "POST /api-keys",
    c.req.header("Idempotency-Key"),
    body,
    async () => {
      const created = await createApiKey(c.var.db, c.var.principal, body.name);
      return { status: 201, body: { ...presentApiKey(created), key: created.key } };
    },
    withoutSecret,
  );
  c.header("Location", locationOf.apiKey(res.body.id));
  return "key" in res.body ? c.json(res.body, 201) : c.json(res.body, 200);
});

apiKeyRoutes.openapi(def.listApiKeys, async (c) =>
  c.json(presentPage(await listApiKeys(c.var.db, c.var.principal, c.req.valid("query")), presentApiKey), 200),
);

apiKeyRoutes.openapi(def.revokeApiKey, async (c) => {
  await revokeApiKey(c.var.db, c.var.principal, c.req.valid("param").api_key_id);
  return c.body(null, 204);
});
