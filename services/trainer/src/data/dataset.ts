// A loaded dataset as the loop sees it: pure types, so core names them without loading the parquet reader.
import type { DatasetRow } from './dataset-row.ts';

/** What happened to one file. */
export interface FileReport {
  path: string;
  /** Rows in the file. */
  rows: number;
  /** Rows kept after sampling and filtering. */
  kept: number;
}

/** Rows of one or more files, grouped by file in configuration order. */
export interface Dataset {
  readonly rows: readonly DatasetRow[];
  /** Kept rows per file; file f's rows are a contiguous run of `rows`. */
  readonly fileSizes: readonly number[];
  readonly files: readonly FileReport[];
  /** Rows dropped by the prompt-length filter. */
  readonly filteredOverlong: number;
}
