// Small models for unit tests: fast to compile and run, same code paths as real sizes.
import { createRandomPolicy, type EmbeddedPolicy } from '../embedded-policy.ts';
import type { ModelConfigInput } from '../model/model-config.ts';
import { arithmeticTokenizer, type TokenizerConfig } from '../tokenizers/tokenizer.ts';

/** A 2-layer, 32-wide model shape. */
export const TINY: Omit<ModelConfigInput, 'vocabSize'> = { dModel: 32, nLayers: 2, nHeads: 2, dFF: 64, maxSeqLen: 64 };

/** A random tiny policy over the arithmetic char tokenizer (or `tokenizer`). */
export function tinyPolicy(
  seed = 1,
  tokenizer: TokenizerConfig = arithmeticTokenizer().config,
  config: Partial<ModelConfigInput> = {},
): Promise<EmbeddedPolicy> {
  return createRandomPolicy({ config: { ...TINY, ...config }, tokenizer, seed, version: `seed-${seed}` });
}
