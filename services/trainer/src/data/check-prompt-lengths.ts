// verl RLHFDataset with truncation "error": a prompt longer than
// max_prompt_length stops the job, naming the file and row, unless
// filter_overlong_prompts dropped it at load.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Dataset } from './dataset.ts';
import type { CountTokens } from './load-dataset.ts';
import { rowLocation } from './row-location.ts';

/** Throws for the first prompt over `maxPromptLength` tokens. */
export function checkPromptLengths(dataset: Dataset, countTokens: CountTokens, maxPromptLength: number): void {
  for (const row of dataset.rows) {
    const tokens = countTokens(row.prompt);
    if (tokens <= maxPromptLength) continue;
    const { path, row: inFile } = rowLocation(dataset, row.row_id);
    throw new AppError(
      ErrorCode.BadRequest,
      `${path} row ${inFile}: the prompt is ${tokens} tokens, more than data.max_prompt_length (${maxPromptLength}); raise it or set data.filter_overlong_prompts (data.truncation: error)`,
      {
        details: { path, row: inFile, tokens, max_prompt_length: maxPromptLength },
      },
    );
  }
}
