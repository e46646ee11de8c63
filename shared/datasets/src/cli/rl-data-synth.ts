import { openParquetFile } from '../parquet-reader.ts';
import { createParquetWriter } from '../parquet-writer.ts';
import { textsAt } from '../text/column-texts.ts';
import { gsm8kFields } from '../gsm8k.ts';
import { synthGsm8kRows, type SynthOptions } from '../word-problems/index.ts';

/** The `extra_info.question` of every row of `files`. */
export async function questionsOf(files: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const path of files) {
    const file = await openParquetFile(path);
    for await (const batch of file.batches()) for (const row of batch.rows) for (const q of textsAt(row, ['extra_info', 'question'])) out.add(q);
  }
  return out;
}

/** `rl-data synth-gsm8k`: synthetic GSM8K-style word problems in verl's GSM8K parquet layout. */
export async function synthGsm8k(output: string, options: SynthOptions): Promise<void> {
  const writer = await createParquetWriter(output, gsm8kFields('plain'));
  try {
    for (const row of synthGsm8kRows(options)) await writer.write(row);
    await writer.close();
  } catch (err) {
    await writer.abort();
    throw err;
  }
  process.stdout.write(
    `${output}: ${options.count} rows (split ${options.split}, seed ${options.seed}${options.exclude ? `, none of ${options.exclude.size} excluded questions` : ''})\n`,
  );
}
