import type { Command } from "commander";
import { client, follow, int, localFile, pageQuery } from "./common.js";
import { printRecord, printTable, show } from "./output.js";
import { bytesBar } from "./progress.js";

export function datasetCommands(program: Command): void {
  const ds = program.command("datasets").description("Upload, list, inspect and delete datasets");

  ds.command("upload <file>")
    .description("Upload a CSV or Parquet file (direct up to 30 MB, else through a signed URL) and wait for its ingestion")
    .option("-n, --name <name>", "dataset name (default: the file name)")
    .option("-d, --dataset <id>", "add a version to this dataset instead")
    .option("--description <text>")
    .option("--signed", "use the signed-URL flow whatever the size")
    .option("--no-wait", "answer once the ingest job is queued")
    .action(async (path: string, o: { name?: string; dataset?: string; description?: string; signed?: boolean; wait: boolean }) => {
      const c = client();
      const file = await localFile(path);
      const bar = bytesBar("upload");
      const up = await c
        .upload(file, { name: o.name, datasetId: o.dataset, description: o.description, signed: o.signed, onProgress: bar.update })
        .finally(bar.stop);
      const job = o.wait ? await follow(c, up.jobId, "ingest") : null;
      const out = { dataset_id: up.datasetId, version_id: up.versionId, version_number: up.versionNumber, job_id: up.jobId, method: up.method, job };
      show(out, () =>
        printRecord({
          dataset_id: up.datasetId,
          version: up.versionNumber,
          job_id: up.jobId,
          upload: up.method,
          status: job?.status ?? "queued",
          rows: (job?.output as { row_count?: number } | null)?.row_count,
          columns: (job?.output as { column_count?: number } | null)?.column_count,
        }),
      );
    });

  ds.command("list")
    .description("List datasets, newest first")
    .option("-s, --search <text>", "name contains (case-insensitive)")
    .option("-l, --limit <n>", "page size (1-200)", int)
    .option("--cursor <cursor>", "next_cursor of the previous page")
    .action(async (o) => {
      const page = await client().call(client().api.GET("/datasets", { params: { query: pageQuery(o) as never } }));
      show(page, () => {
        printTable(
          page.items.map((d) => ({
            ...d,
            version: d.current_version?.version_number,
            status: d.current_version?.status,
            rows: d.current_version?.row_count,
          })),
          ["dataset_id", "name", "version", "status", "rows", "created_at"],
        );
        if (page.next_cursor) process.stdout.write(`next page: --cursor ${page.next_cursor}\n`);
      });
    });

  ds.command("show <id>")
    .description("A dataset with its column profile")
    .action(async (id: string) => {
      const c = client();
      const d = await c.call(c.api.GET("/datasets/{dataset_id}", { params: { path: { dataset_id: id } } }));
      show(d, () => {
        const { columns, ...rest } = d as typeof d & { columns?: Record<string, unknown>[] };
        printRecord(rest);
        if (columns?.length) {
          process.stdout.write("\n");
          printTable(columns, ["name", "type", "missing_count", "distinct_count"]);
        }
      });
    });

  ds.command("preview <id>")
    .description("The first rows of the latest ready version")
    .option("-l, --limit <n>", "rows", int)
    .action(async (id: string, o: { limit?: number }) => {
      const c = client();
      const p = await c.call(c.api.GET("/datasets/{dataset_id}/preview", { params: { path: { dataset_id: id }, query: pageQuery(o) as never } }));
      show(p, () => {
        const rows = (p as { rows?: Record<string, unknown>[] }).rows ?? [];
        printTable(rows, Object.keys(rows[0] ?? {}));
      });
    });

  ds.command("rm <id>")
    .description("Delete a dataset, its versions and their files")
    .action(async (id: string) => {
      const c = client();
      await c.call(c.api.DELETE("/datasets/{dataset_id}", { params: { path: { dataset_id: id } } }));
      show({ deleted: id }, () => process.stdout.write(`Deleted dataset ${id}\n`));
    });
}
