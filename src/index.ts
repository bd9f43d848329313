/**
 * The Worker: the API (fetch), the job consumer (queue), the daily retention sweep (scheduled),
 * and the classes the runtime
 * instantiates. The one place that wires the layers together.
 */
import { createApp } from "./api/app";
import { internalApp } from "./api/routes/internal";
import { createDb } from "./db/client";
import { expireInferenceFiles } from "./models/retention";
import { handleQueueBatch } from "./queue/consumer";
import { routeControlCalls } from "./trainer-control/trainer-container";

export { JobDO } from "./durable/job";
export { TrainerContainer } from "./trainer-control/trainer-container";

// The trainer container's calls back to the Worker are answered by the internal control routes.
routeControlCalls((request, env) => internalApp.fetch(request, env));

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch, env): Promise<void> {
    await handleQueueBatch(batch, { env, bucket: env.BUCKET });
  },
  // The daily cron trigger (wrangler.toml): inference files past their retention are deleted.
  async scheduled(_controller, env, ctx): Promise<void> {
    ctx.waitUntil(
      expireInferenceFiles({ db: createDb(env.DB), bucket: env.BUCKET }).then((n) => console.log(`retention: files of ${n} jobs deleted`)),
    );
  },
} satisfies ExportedHandler<Env>;
