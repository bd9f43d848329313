/** Response schemas of the API key routes, matching `presentApiKey` in `presenters/api-keys.ts`. */
import { z } from "@hono/zod-openapi";
import { nextCursor } from "./common";

const EXAMPLE = {
  id: "4f7c2a10-9a51-4a8e-8d43-2f0b5b1f7e21",
  name: "ci key",
  prefix: "sk_Q2x9rTb",
  created_at: "2026-01-05T10:00:00.000Z",
  revoked_at: null,
  last_used_at: "2026-01-06T08:12:00.000Z",
  current: false,
};

export const ApiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The key's first characters (`sk_` and 7 more), to recognise it; the rest is never shown again" }),
    created_at: z.iso.datetime(),
    revoked_at: z.iso.datetime().nullable().openapi({ description: "When the key was revoked; null while it works" }),
    last_used_at: z.iso
      .datetime()
      .nullable()
      .openapi({ description: "When the key last authenticated a request, to the minute; null when it has not been used" }),
    current: z.boolean().openapi({ description: "True for the key that made this request" }),
  })
  .openapi("ApiKey", { example: EXAMPLE });

export const ApiKeyCreated = ApiKey.extend({
  key: z.string().openapi({ description: "The secret, `sk_` + 43 characters. Shown in this answer only: store it now" }),
}).openapi("ApiKeyCreated", {
  example: { ...EXAMPLE, last_used_at: null, current: false, key: "sk_Q2x9rTbLw4mZk8pVn3cYe7uHa1sDf6gJq0tXr5oBi2N" },
});

export const ApiKeyPage = z.object({ items: z.array(ApiKey), next_cursor: nextCursor }).openapi("ApiKeyPage");
