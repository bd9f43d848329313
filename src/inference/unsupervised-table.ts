/**
 * A non-prediction model's answer: its ONNX outputs (./run-graph) as the interface's columns.
 * anomaly `id, anomaly_score, is_anomaly`; embedding `id, embedding`; clustering `id, cluster,
 * cluster_description`; factors `id, factor_1..k`; search `id, neighbor_ids, distances` (the
 * neighbours are found in the model's index by the caller, from the graph's query vectors);
 * causal `id, effect, outcome_if_treated, outcome_if_control` — numbers for a treatment with one
 * treated arm, lists in the order of the model's treated_arms for several.
 */
import type { UnsupervisedArtifact } from "./artifact";
import type { Cell, ParquetColumnType, ResultTable } from "./output";
import { round7 } from "./prediction-table";
import type { GraphOutput } from "./run-graph";

export interface Neighbours {
  ids: (string | number)[][];
  distances: number[][];
}

/** Rows of a [N, width] output as lists (empty when the graph was not run: zero rows). */
function rowsOf(out: GraphOutput | undefined, n: number): number[][] {
  if (!out || n === 0) return [];
  const width = out.data.length / n;
  return Array.from({ length: n }, (_, i) => Array.from(out.data.subarray(i * width, (i + 1) * width), round7));
}

function column(out: GraphOutput | undefined, n: number): number[] {
  return n === 0 || !out ? [] : Array.from(out.data);
}

export function unsupervisedTable(
  a: UnsupervisedArtifact,
  outs: Record<string, GraphOutput>,
  ids: Cell[],
  neighbours: Neighbours | null,
): ResultTable {
  const n = ids.length;
  const table: ResultTable = { id: ids };
  switch (a.model_type) {
    case "anomaly":
      table.anomaly_score = column(outs.anomaly_score, n).map(round7);
      table.is_anomaly = column(outs.is_anomaly, n).map((x) => x !== 0);
      return table;
    case "embedding":
      table.embedding = rowsOf(outs.embedding, n);
      return table;
    case "clustering": {
      const described = (a.head.clusters ?? []) as { id: number; description: string }[];
      const descriptions = new Map(described.map((c) => [c.id, c.description]));
      const clusters = column(outs.cluster, n);
      table.cluster = clusters;
      table.cluster_description = clusters.map((k) => descriptions.get(k) ?? null);
      return table;
    }
    case "factors": {
      const k = Number(a.head.n_components);
      const rows = rowsOf(outs.factors, n);
      for (let j = 0; j < k; j++) table[`factor_${j + 1}`] = rows.map((r) => r[j]);
      return table;
    }
    case "search":
      table.neighbor_ids = neighbours?.ids ?? [];
      table.distances = (neighbours?.distances ?? []).map((d) => d.map(round7));
      return table;
    case "causal": {
      const perArm = (name: string) => (treatedArms(a) === 1 ? column(outs[name], n).map(round7) : rowsOf(outs[name], n));
      table.effect = perArm("effect");
      table.outcome_if_treated = perArm("outcome_if_treated");
      table.outcome_if_control = column(outs.outcome_if_control, n).map(round7);
      return table;
    }
  }
}

/** A causal model's number of treated arms (1 for a binary treatment). */
export function treatedArms(a: UnsupervisedArtifact): number {
  return Array.isArray(a.head.treated_arms) ? a.head.treated_arms.length : 1;
}

/** Parquet types of the columns, known even when there are no rows to infer them from. */
export function unsupervisedColumnTypes(a: UnsupervisedArtifact, table: ResultTable): Record<string, ParquetColumnType> {
  const lists = ["cluster_description", "embedding", "neighbor_ids", "distances"];
  if (a.model_type === "causal" && treatedArms(a) > 1) lists.push("effect", "outcome_if_treated");
  const types: Record<string, ParquetColumnType> = {};
  for (const name of Object.keys(table)) {
    if (name === "id") continue;
    types[name] = name === "is_anomaly" ? "boolean" : name === "cluster" ? "int64" : lists.includes(name) ? "string" : "double";
  }
  return types;
}
