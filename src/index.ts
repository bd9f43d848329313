/**
 * The Worker: the API (fetch), the job consumer (queue), and the classes the runtime
 * instantiates. The one place that wires the layers together.
 */
import { createApp } from "./api/app";
import { internalApp } from "./api/routes/internal";
import { routeControlCalls } from "./container/trainer-container";
import { handleQueueBatch } from "./queue/consumer";

export { TrainerContainer } from "./container/trainer-container";
export { JobDO } from "./durable/job";

// The trainer container's calls back to the Worker are answered by the internal control routes.
routeControlCalls((request, env) => internalApp.fetch(request, env));

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch, env): Promise<void> {
    await handleQueueBatch(batch, { env, bucket: env.BUCKET });
  },
} satisfies ExportedHandler<Env>;
