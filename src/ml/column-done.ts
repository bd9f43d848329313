/**
 * A column of a large table read through (described, profiled, binned): the step the engine's
 * long passes over a table yield, so that the job may report meanwhile (tens of millions of rows
 * take seconds a column, minutes a table on a loaded instance).
 */
export interface ColumnDone {
  phase: "column";
}
export const COLUMN_DONE: ColumnDone = { phase: "column" };
