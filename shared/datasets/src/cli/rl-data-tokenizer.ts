import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openParquetFile } from '../parquet-reader.ts';
import { textsAt } from '../text/column-texts.ts';
import { BYTE_SPECIALS, chatMlBpeTokenizer, tokenizerFiles, trainBpe } from '@rl/policy';
import type { PreTokenizerStyle } from '@rl/policy';

/** Options of `rl-data train-tokenizer`. */
export interface TrainTokenizerFlags {
  vocabSize: number;
  columns: string[];
  pretokenizer: PreTokenizerStyle;
}

/**
 * `rl-data train-tokenizer`: a byte-level BPE tokenizer.json learned from columns
 * of parquet files (ChatML specials), with tokenizer_config.json (its ChatML chat
 * template, bos/eos/pad) and special_tokens_map.json beside it.
 */
export async function trainTokenizer(output: string, inputs: readonly string[], flags: TrainTokenizerFlags): Promise<void> {
  const texts: string[] = [];
  const paths = flags.columns.map((c) => c.split('.'));
  for (const input of inputs) {
    const file = await openParquetFile(input);
    for await (const batch of file.batches()) for (const row of batch.rows) for (const p of paths) texts.push(...textsAt(row, p));
  }
  const json = trainBpe(texts, { vocabSize: flags.vocabSize, specials: BYTE_SPECIALS, pretokenizer: flags.pretokenizer });
  const { 'tokenizer.json': tokenizerJson, ...beside } = tokenizerFiles(chatMlBpeTokenizer(json));
  await writeFile(output, tokenizerJson as string);
  for (const [name, text] of Object.entries(beside)) await writeFile(join(dirname(output), name), text);
  process.stdout.write(
    `${output}: ${Object.keys(json.model.vocab).length + BYTE_SPECIALS.length} tokens (${json.model.merges.length} merges) from ${texts.length} texts\n`,
  );
}
