import { createParquetWriter } from '../data/parquet-writer.ts';
import { gsm8kFields } from '../data/gsm8k.ts';
import { synthGsm8kRows, type SynthOptions } from '../data/word-problems/index.ts';

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
  process.stdout.write(`${output}: ${options.count} rows (split ${options.split}, seed ${options.seed})\n`);
}
