import { createApp } from "./api/app";
import { handleQueueBatch } from "./queue/consumer";

export { JobDO } from "./durable/job";

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch, env): Promise<void> {
    await handleQueueBatch(batch, { env, bucket: env.BUCKET });
  },
} satisfies ExportedHandler<Env>;
export { TrainerContainer } from "./container/trainer-container";
