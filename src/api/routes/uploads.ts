import { Hono } from "hono";
import { createDb } from "../../db/client";
import { receiveUpload } from "../../datasets/signed-upload";
import type { AppEnv } from "../context";

/** The signed-URL target. No API key: the signed token in the path is the authorization. */
export const uploadRoutes = new Hono<AppEnv>();

uploadRoutes.put("/uploads/:token", async (c) => {
  const deps = {
    db: createDb(c.env.DB),
    jobs: c.env.JOB,
    queue: c.env.JOBS_QUEUE,
    bucket: c.env.BUCKET,
    signingSecret: c.env.SIGNING_SECRET,
  };
  return c.json(await receiveUpload(deps, c.req.param("token"), c.req.raw));
});
