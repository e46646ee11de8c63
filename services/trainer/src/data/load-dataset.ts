import { openParquetFile } from '@rl/datasets';
import { AppError, ErrorCode, createRng } from '@rl/service-kit/core';
import type { Dataset, FileReport } from './dataset.ts';
import { toDatasetRow, type DatasetRow, type Prompt } from './dataset-row.ts';

/** Counts a prompt's tokens as the policy will see it (chat template included). */
export type CountTokens = (prompt: Prompt) => number;

/** Options of {@link loadDataset}; the names follow `data.*` in the job config. */
export interface LoadDatasetOptions {
  files: readonly string[];
  /** @default "prompt" */
  promptKey?: string;
  /** @default null */
  defaultDataSource?: string | null;
  /** Column of the prompt without the context r (story signals). @default "prompt_without_context" */
  withoutContextKey?: string;
  /** Keep this many rows (verl `train_max_samples`); -1 = all. @default -1 */
  maxSamples?: number;
  /** With maxSamples: pick a seeded random subset instead of the first rows (verl does so when shuffling). @default false */
  sampleRandomly?: boolean;
  /** Seed of the random subset. @default 1 */
  seed?: number;
  /** verl `filter_overlong_prompts`: drop prompts with more than `maxPromptLength` tokens. */
  filter?: { maxPromptLength: number; countTokens: CountTokens };
}

/** Row ids to keep when only `maxSamples` of `total` rows are wanted (a seeded random subset, or the first rows). */
export function sampleIds(total: number, maxSamples: number, randomly: boolean, seed: number): Set<number> | undefined {
  if (maxSamples < 0 || maxSamples >= total) return undefined;
  if (!randomly) return new Set(Array.from({ length: maxSamples }, (_, i) => i));
  const ids = Array.from({ length: total }, (_, i) => i);
  const rng = createRng(seed);
  for (let i = 0; i < maxSamples; i++) {
    const j = rng.int(i, total - 1);
    [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
  }
  return new Set(ids.slice(0, maxSamples));
}

function fitsPrompt(prompt: Prompt, filter: LoadDatasetOptions['filter']): boolean {
  if (filter === undefined) return true;
  try {
    return filter.countTokens(prompt) <= filter.maxPromptLength;
  } catch (err) {
    // A configuration problem (a tokenizer without a chat template) is not a long prompt.
    if (err instanceof AppError && err.code === ErrorCode.InvalidConfig) throw err;
    // verl's doc2len: a prompt that cannot be tokenized counts as too long.
    return false;
  }
}

/**
 * Loads verl-format parquet files: concatenated in order, optionally
 * subsampled (`maxSamples`) and filtered by prompt length, as verl's
 * RLHFDataset does. Malformed rows fail with the file, row and field named.
 */
export async function loadDataset(options: LoadDatasetOptions): Promise<Dataset> {
  const {
    files,
    promptKey = 'prompt',
    defaultDataSource = null,
    withoutContextKey = 'prompt_without_context',
    maxSamples = -1,
    sampleRandomly = false,
    seed = 1,
    filter,
  } = options;
  if (files.length === 0) throw new AppError(ErrorCode.BadRequest, 'no data files given');
  const opened = await Promise.all(files.map((path) => openParquetFile(path)));
  for (const file of opened) {
    if (!file.fields.some((f) => f.name === promptKey)) {
      const columns = file.fields.map((f) => f.name).join(', ');
      throw new AppError(ErrorCode.BadRequest, `${file.path}: no prompt column "${promptKey}" (columns: ${columns}); set data.prompt_key`);
    }
  }
  const total = opened.reduce((n, f) => n + f.numRows, 0);
  const keep = sampleIds(total, maxSamples, sampleRandomly, seed);
  const rows: DatasetRow[] = [];
  const reports: FileReport[] = [];
  let offset = 0;
  let filteredOverlong = 0;
  for (const [fileIndex, file] of opened.entries()) {
    let kept = 0;
    for await (const batch of file.batches()) {
      for (const [i, raw] of batch.rows.entries()) {
        const row = batch.rowStart + i;
        const rowId = offset + row;
        if (keep !== undefined && !keep.has(rowId)) continue;
        const parsed = toDatasetRow(raw, { path: file.path, fileIndex, row, rowId }, { promptKey, defaultDataSource, withoutContextKey });
        if (!fitsPrompt(parsed.prompt, filter)) {
          filteredOverlong++;
          continue;
        }
        rows.push(parsed);
        kept++;
      }
    }
    reports.push({ path: file.path, rows: file.numRows, kept });
    offset += file.numRows;
  }
  return { rows, fileSizes: reports.map((r) => r.kept), files: reports, filteredOverlong };
}
