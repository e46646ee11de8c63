// SFT parquet files -> tokenized sequences (verl SFTDataset /
// MultiTurnSFTDataset): files concatenated in order, optionally capped to
// `maxSamples` rows (a seeded random subset, as verl does when shuffling),
// each row read and tokenized; a bad row names its file, row and field.
import { openParquetFile } from '@rl/datasets';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { PolicyTokenizer } from '@rl/policy';
import { toJsonValue, type JsonValue } from '../dataset-row.ts';
import { sampleIds } from '../load-dataset.ts';
import { toSftExample, type SftColumns } from './sft-example.ts';
import { tokenizeSft, type SftSequence, type Truncation } from './sft-tokenize.ts';

/** Options of {@link loadSftDataset}. */
export interface LoadSftOptions {
  files: readonly string[];
  columns: SftColumns;
  tokenizer: PolicyTokenizer;
  maxLength: number;
  truncation: Truncation;
  /** -1 = all rows. */
  maxSamples: number;
  seed: number;
}

/** Tokenized SFT data, in file order. */
export interface SftDataset {
  readonly rows: readonly SftSequence[];
  /** Rows per file (the sampler's view of the files). */
  readonly fileSizes: readonly number[];
  /** Longest prompt and response, for fixed training shapes. */
  readonly maxPromptTokens: number;
  readonly maxResponseTokens: number;
  /** Tokens the loss covers, over all rows. */
  readonly learnedTokens: number;
}

/** Reads and tokenizes the files. */
export async function loadSftDataset(o: LoadSftOptions): Promise<SftDataset> {
  if (o.files.length === 0) throw new AppError(ErrorCode.BadRequest, 'no data files given');
  const opened = await Promise.all(o.files.map((path) => openParquetFile(path)));
  const need = o.columns.messagesKey !== null ? [o.columns.messagesKey] : [o.columns.promptKey, o.columns.responseKey];
  for (const file of opened) {
    for (const column of need) {
      if (!file.fields.some((f) => f.name === column)) {
        const hint = o.columns.messagesKey !== null ? 'data.multiturn.messages_key' : 'data.prompt_key / data.response_key';
        throw new AppError(ErrorCode.BadRequest, `${file.path}: no column "${column}" (columns: ${file.fields.map((f) => f.name).join(', ')}); set ${hint}`);
      }
    }
  }
  const keep = sampleIds(
    opened.reduce((n, f) => n + f.numRows, 0),
    o.maxSamples,
    true,
    o.seed,
  );
  const rows: SftSequence[] = [];
  const fileSizes: number[] = [];
  let offset = 0;
  for (const [fileIndex, file] of opened.entries()) {
    const before = rows.length;
    for await (const batch of file.batches()) {
      for (const [i, raw] of batch.rows.entries()) {
        const row = batch.rowStart + i;
        const origin = { path: file.path, fileIndex, row, rowId: offset + row };
        if (keep !== undefined && !keep.has(origin.rowId)) continue;
        const example = toSftExample(toJsonValue(raw) as { [key: string]: JsonValue }, origin, o.columns);
        rows.push(tokenizeSft(example, o.tokenizer, o.maxLength, o.truncation));
      }
    }
    fileSizes.push(rows.length - before);
    offset += file.numRows;
  }
  return {
    rows,
    fileSizes,
    maxPromptTokens: rows.reduce((m, r) => Math.max(m, r.prompt.length), 1),
    maxResponseTokens: rows.reduce((m, r) => Math.max(m, r.response.length), 1),
    learnedTokens: rows.reduce((n, r) => n + r.lossMask.reduce((a, b) => a + b, 0), 0),
  };
}
