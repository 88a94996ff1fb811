/**
 * A page as a table, the shape CSV and the dataframe formats share: the columns (`time` first),
 * the rows and how a row becomes its cells (the same strings as the JSON rows, null as null),
 * and, for the typed formats, each decimal column's places and which columns hold whole numbers.
 */
export interface PageTable<Row> {
  columns: readonly string[];
  rows: readonly Row[];
  cells: (row: Row) => ReadonlyArray<string | null | undefined>;
  /** Decimal places of a column other than `time`. */
  scaleOf: (column: string) => number;
  /** Whether a column holds whole numbers (Int64) rather than decimals. */
  integer?: (column: string) => boolean;
  nextStart: string | null;
}
