import type { Command } from "commander";
import { client, follow, int, pageQuery } from "./common.js";
import { printRecord, printTable, show } from "./output.js";
import { describeJob } from "./progress.js";

export function jobCommands(program: Command): void {
  const jobs = program.command("jobs").description("Follow, cancel and retry jobs");

  jobs
    .command("list")
    .description("List jobs, newest first")
    .option("-t, --type <type>", "dataset_ingest, train, infer_sync, infer_batch or infer_explain")
    .option("-s, --status <status>")
    .option("-m, --model <id>")
    .option("-d, --dataset <id>")
    .option("-l, --limit <n>", "page size (1-200)", int)
    .option("--cursor <cursor>")
    .action(async (o) => {
      const c = client();
      const query = pageQuery({ type: o.type, status: o.status, model_id: o.model, dataset_id: o.dataset, limit: o.limit, cursor: o.cursor });
      const page = await c.call(c.api.GET("/jobs", { params: { query: query as never } }));
      show(page, () => {
        printTable(page.items as unknown as Record<string, unknown>[], [
          "id",
          "type",
          "status",
          "progress",
          "model_id",
          "dataset_name",
          "created_at",
        ]);
        if (page.next_cursor) process.stdout.write(`next page: --cursor ${page.next_cursor}\n`);
      });
    });

  jobs
    .command("show <id>")
    .description("A job with its progress, output or error")
    .action(async (id: string) => {
      const c = client();
      const job = await c.call(c.api.GET("/jobs/{job_id}", { params: { path: { job_id: id } } }));
      show(job, () => {
        const d = describeJob(job);
        printRecord({
          id: job.id,
          type: job.type,
          status: job.status,
          progress: job.progress,
          steps: d.steps.trim() || undefined,
          phase: job.current_phase,
          losses: d.losses.trim() || undefined,
          error: job.error_message,
          output: job.output,
          created_at: job.created_at,
          finished_at: job.finished_at,
        });
      });
    });

  jobs
    .command("cancel <id>")
    .description("Cancel a queued or running job (a job that has already ended stays as it ended)")
    .action(async (id: string) => {
      const c = client();
      const r = await c.call(c.api.POST("/jobs/{job_id}/cancel", { params: { path: { job_id: id } } }));
      show(r, () =>
        process.stdout.write(r.status === "canceled" ? `Canceled job ${r.job_id}\n` : `Job ${r.job_id} had already ended: ${r.status}\n`),
      );
    });

  jobs
    .command("retry <id>")
    .description("Retry a failed job as a new job")
    .option("-w, --wait", "follow the new job to its end")
    .action(async (id: string, o: { wait?: boolean }) => {
      const c = client();
      const r = await c.call(c.api.POST("/jobs/{job_id}/retry", { params: { path: { job_id: id } } }));
      const job = o.wait ? await follow(c, r.job_id, "retry") : null;
      show({ ...r, job }, () => process.stdout.write(`New job ${r.job_id} ${job?.status ?? r.status}\n`));
    });

  jobs
    .command("watch <id>")
    .description("Follow a job until it ends (exit 0 succeeded, 3 failed or canceled)")
    .action(async (id: string) => {
      const job = await follow(client(), id, "job");
      show(job, () => printRecord({ id: job.id, type: job.type, status: job.status, output: job.output }));
    });
}
