/** Helpers that turn graph outputs into answer columns, shared by the types' answers. */
import type { GraphOutput, ParquetColumnType, ResultTable } from "./contract";

/** float32 values to the precision they carry (7 digits), without float noise in JSON. */
export const round7 = (x: number) => Number(x.toPrecision(7));

/** A [N] (or [N, 1]) output as numbers (empty when the graph was not run: zero rows). */
export function outputColumn(out: GraphOutput | undefined, n: number): number[] {
  return n === 0 || !out ? [] : Array.from(out.data);
}

/** The rows of a [N, width] output as lists, rounded (empty when the graph was not run: zero rows). */
export function outputRows(out: GraphOutput | undefined, n: number): number[][] {
  if (!out || n === 0) return [];
  const width = out.data.length / n;
  return Array.from({ length: n }, (_, i) => Array.from(out.data.subarray(i * width, (i + 1) * width), round7));
}

/** The Parquet type of each column but `id`: those named in `types`, `double` for the rest. */
export function columnTypesOf(table: ResultTable, types: Record<string, ParquetColumnType> = {}): Record<string, ParquetColumnType> {
  const out: Record<string, ParquetColumnType> = {};
  for (const name of Object.keys(table)) if (name !== "id") out[name] = types[name] ?? "double";
  return out;
}
