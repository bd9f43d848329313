import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import type { TrainRequest } from "../client.js";
import { MODEL_TYPES } from "../limits.js";
import { client, follow, int, keyValue, localFile, pageQuery } from "./common.js";
import { printRecord, printTable, show, UsageError } from "./output.js";
import { bytesBar, jobBar } from "./progress.js";

export function modelCommands(program: Command): void {
  const models = program.command("models").description("Train models, list them, predict and explain");

  models
    .command("train")
    .description("Train a model on a dataset and follow the training job (steps, phase, losses)")
    .requiredOption("-n, --name <name>", "model name")
    .option("-d, --dataset <id>", "train on the latest ready version of this dataset")
    .option("--dataset-version <id>", "or on this dataset version")
    .option("-t, --type <type>", `one of ${MODEL_TYPES.join(", ")}`, "prediction")
    .option("-l, --label <column>", "target column (prediction), outcome (causal)")
    .option("--input-columns <a,b,...>", "columns to use (default: every usable one)", (v) => v.split(","))
    .option("-p, --param <key=value>", "a model parameter, repeatable (e.g. -p max_rounds=50)", keyValue)
    .option("--description <text>")
    .option("--no-wait", "answer once the training job is queued")
    .action(async (o) => {
      if (!o.dataset === !o.datasetVersion) throw new UsageError("Give exactly one of --dataset or --dataset-version.");
      if (!MODEL_TYPES.includes(o.type)) throw new UsageError(`--type must be one of ${MODEL_TYPES.join(", ")}.`);
      const body = {
        model_name: o.name,
        model_type: o.type,
        ...(o.dataset ? { dataset_id: o.dataset } : { dataset_version_id: o.datasetVersion }),
        ...(o.label ? { label_column: o.label } : {}),
        ...(o.inputColumns ? { input_columns: o.inputColumns } : {}),
        ...(o.param ? { params: o.param } : {}),
        ...(o.description ? { description: o.description } : {}),
      } as TrainRequest;
      const c = client();
      const started = await c.train(body);
      const job = o.wait ? await follow(c, started.job_id, "train") : null;
      const model = job ? await c.call(c.api.GET("/models/{model_id}", { params: { path: { model_id: started.model.id } } })) : null;
      show({ ...started, job, model }, () =>
        printRecord({
          model_id: started.model.id,
          version: started.model.version_number,
          job_id: started.job_id,
          status: model?.status ?? started.status,
          metrics: model?.current_metrics,
        }),
      );
    });

  models
    .command("list")
    .description("List models, newest first")
    .option("-t, --type <type>", "model_type")
    .option("-d, --dataset <id>", "trained on this dataset")
    .option("-s, --status <status>", "queued, processing, ready or failed")
    .option("-l, --limit <n>", "page size (1-200)", int)
    .option("--cursor <cursor>")
    .action(async (o) => {
      const c = client();
      const query = pageQuery({ model_type: o.type, dataset_id: o.dataset, status: o.status, limit: o.limit, cursor: o.cursor });
      const page = await c.call(c.api.GET("/models", { params: { query: query as never } }));
      show(page, () => {
        printTable(
          page.items.map((m) => ({ ...m, version: m.current_version?.version })),
          ["model_id", "model_name", "model_type", "status", "version", "current_metrics", "created_at"],
        );
        if (page.next_cursor) process.stdout.write(`next page: --cursor ${page.next_cursor}\n`);
      });
    });

  models
    .command("show <id>")
    .description("A model with its current version and metrics")
    .action(async (id: string) => {
      const c = client();
      const m = await c.call(c.api.GET("/models/{model_id}", { params: { path: { model_id: id } } }));
      show(m, () => printRecord(m));
    });

  models
    .command("infer <id> <file>")
    .description("Predict on a file (≤ 30 MB): a table of predictions, or a csv / parquet file with --output")
    .option("-f, --format <format>", "json, csv or parquet", "json")
    .option("-o, --output <path>", "write the csv / parquet answer here (default: stdout for csv)")
    .option("--model-version <id>", "default: the latest ready version")
    .action(async (id: string, path: string, o: { format: string; output?: string; modelVersion?: string }) => {
      if (!["json", "csv", "parquet"].includes(o.format)) throw new UsageError("--format must be json, csv or parquet.");
      if (o.format === "parquet" && !o.output) throw new UsageError("--format parquet needs --output <path>.");
      const c = client();
      const bar = bytesBar("upload");
      const r = await c
        .infer(id, await localFile(path), { outputType: o.format as "json", modelVersionId: o.modelVersion, onProgress: bar.update })
        .finally(bar.stop);
      if (r.kind === "file") {
        if (o.output) writeFileSync(o.output, r.bytes);
        else process.stdout.write(r.bytes);
        return;
      }
      show(r.result, () => {
        const data = r.result.data as Record<string, unknown[]>;
        const cols = Object.keys(data);
        const n = data[cols[0] ?? ""]?.length ?? 0;
        printTable(
          Array.from({ length: n }, (_, i) => Object.fromEntries(cols.map((k) => [k, data[k]![i]]))),
          cols,
        );
        process.stderr.write(`job ${r.result.job_id} (${r.result.latency_ms} ms)\n`);
      });
    });

  models
    .command("explain <id> <file>")
    .description("Why the model predicts what it does for rows of a file: predicts, then explains the rows")
    .option("-i, --ids <ids>", "row ids to explain, comma-separated (default: the first 10 rows)", (v) => v.split(","))
    .action(async (id: string, path: string, o: { ids?: string[] }) => {
      const c = client();
      const r = await c.infer(id, await localFile(path), { outputType: "json" });
      if (r.kind !== "json") return;
      const rowIds = ((r.result.data as { id?: unknown[] }).id ?? []).slice(0, 10);
      const ids = (o.ids ?? rowIds.map(String)).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      if (ids.length === 0) throw new UsageError("The file has no rows to explain.");
      const bar = jobBar("explain");
      const explanations = await c.explain(r.result.job_id, ids, { onProgress: (j) => bar.update(j) }).finally(bar.stop);
      show({ inference_job_id: r.result.job_id, explanations }, () => {
        for (const e of explanations) {
          process.stdout.write(`row ${e.id}: ${e.explanation_label ?? ""}\n  ${e.explanation_text ?? ""}\n`);
          const top = (e.feature_contributions ?? []).slice(0, 5) as Record<string, unknown>[];
          if (top.length) printTable(top, Object.keys(top[0]!).slice(0, 4));
        }
      });
    });

  models
    .command("rm <id>")
    .description("Delete a model and its versions")
    .action(async (id: string) => {
      const c = client();
      await c.call(c.api.DELETE("/models/{model_id}", { params: { path: { model_id: id } } }));
      show({ deleted: id }, () => process.stdout.write(`Deleted model ${id}\n`));
    });
}
