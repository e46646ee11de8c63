// Tiny reward-model directories for tests: the policy's tiny model with a
// random one-label `score` head, as a ...ForTokenClassification (verl's reward
// model) or a ...ForSequenceClassification (its `score` without bias).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeSafetensors, type HostParams, type PolicyWeights } from '@rl/policy';
import { writeTinyModelDir } from '@rl/policy/testing';

/** Byte ids of the tiny models' tokenizer: `\n`, which the sequence-classification model takes as its pad_token_id. */
export const NEWLINE_ID = 10;

/** Options of {@link writeTinyRewardModel}. */
export interface TinyRewardModelOptions {
  head: 'token' | 'sequence';
  seed?: number;
  /** max_position_embeddings. @default 256 */
  maxSeqLen?: number;
}

/**
 * Writes a tiny Qwen3 reward model at `dir` (byte tokenizer, ChatML template)
 * and returns its weights as the directory holds them. The sequence model's
 * config.json names `\n` its pad_token_id, so the last non-pad token differs
 * from the last token of a ChatML render (which ends in `<|im_end|>\n`).
 */
export async function writeTinyRewardModel(dir: string, options: TinyRewardModelOptions): Promise<{ params: HostParams; weights: PolicyWeights }> {
  const weights = await writeTinyModelDir(dir, { valueHead: true, seed: options.seed ?? 3, scale: 9, config: { maxSeqLen: options.maxSeqLen ?? 256 } });
  if (options.head === 'token') return { params: weights.params, weights };
  const { 'score.bias': _bias, ...params } = weights.params;
  const configPath = join(dir, 'config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
  await writeFile(configPath, JSON.stringify({ ...config, architectures: ['Qwen3ForSequenceClassification'], pad_token_id: NEWLINE_ID }, null, 2));
  await writeFile(join(dir, 'model.safetensors'), encodeSafetensors(params, { format: 'pt' }));
  return { params, weights };
}
