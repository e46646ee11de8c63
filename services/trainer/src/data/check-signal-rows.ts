// Story signals need each reply scored under the prompt without the context r:
// a row whose reward takes signals but that has no such prompt stops the job
// before it starts, naming the file, row and column, instead of being scored
// silently without info_gain.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Dataset } from './dataset.ts';
import { rowLocation } from './row-location.ts';

/** Throws for the first row that `needsSignals` and has no prompt without r in column `key`. */
export function checkSignalRows(dataset: Dataset, needsSignals: (dataSource: string) => boolean, key: string): void {
  for (const row of dataset.rows) {
    if (row.prompt_without_context !== null || !needsSignals(row.data_source)) continue;
    const { path, row: inFile } = rowLocation(dataset, row.row_id);
    throw new AppError(
      ErrorCode.BadRequest,
      `${path} row ${inFile}: no "${key}" (the prompt without the context r, which the ${row.data_source} reward's signals need); convert with rl-data convert-story, set data.prompt_without_context_key, or turn signals off with reward.signals: false`,
      { details: { path, row: inFile, field: key } },
    );
  }
}
