import { z } from "@hono/zod-openapi";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../core/limits";
import { decodeCursor, decodeVersionCursor } from "../db/cursor";

/** Query fields of every paged list. */
export const pageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE_MAX)
    .default(PAGE_SIZE_DEFAULT)
    .openapi({ description: `Page size, 1 to ${PAGE_SIZE_MAX}.` }),
  cursor: z
    .string()
    .min(1)
    .refine((s) => decodeCursor(s) !== null, "Invalid cursor: pass the next_cursor of a previous page unchanged")
    .optional()
    .openapi({ description: "The `next_cursor` of the previous page." }),
};

/** Query fields of a version list: paged like every list, its cursor a position among versions. */
export const versionPageQuery = {
  limit: pageQuery.limit,
  cursor: z
    .string()
    .min(1)
    .refine((s) => decodeVersionCursor(s) !== null, "Invalid cursor: pass the next_cursor of a previous page unchanged")
    .optional()
    .openapi({ description: "The `next_cursor` of the previous page." }),
};
