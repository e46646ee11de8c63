import type { Dataset } from './dataset.ts';

/** Where a dataset row sits in its file: row_id counts rows over the concatenated files. */
export function rowLocation(dataset: Dataset, rowId: number): { path: string; row: number } {
  let start = 0;
  for (const f of dataset.files) {
    if (rowId < start + f.rows) return { path: f.path, row: rowId - start };
    start += f.rows;
  }
  return { path: dataset.files[0]?.path ?? 'data', row: rowId };
}
