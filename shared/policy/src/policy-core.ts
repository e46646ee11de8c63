import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Kernels } from './model/kernels.ts';
import type { ModelConfig } from './model/model-config.ts';
import type { Params } from './model/params.ts';
import type { PolicyTokenizer } from './tokenizers/tokenizer.ts';

/** What generation and scoring need: the shape, its compiled kernels, weights and tokenizer. */
export interface PolicyCore {
  readonly config: ModelConfig;
  readonly kernels: Kernels;
  readonly params: Params;
  readonly tokenizer: PolicyTokenizer;
}

/** Rejects token lists a model cannot take, naming the offending entry (`what[i]`). */
export function checkTokenLists(lists: readonly (readonly number[])[], what: string, vocabSize: number, maxLen: number, allowEmpty: boolean): void {
  lists.forEach((ids, i) => {
    if (!Array.isArray(ids)) throw new AppError(ErrorCode.BadRequest, `${what}[${i}] must be an array of token ids`);
    if (!allowEmpty && ids.length === 0) throw new AppError(ErrorCode.BadRequest, `${what}[${i}] is empty`);
    if (ids.length > maxLen) {
      throw new AppError(ErrorCode.BadRequest, `${what}[${i}] has ${ids.length} tokens, more than the model's ${maxLen}`);
    }
    const bad = ids.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize);
    if (bad >= 0) throw new AppError(ErrorCode.BadRequest, `${what}[${i}][${bad}]: token id ${ids[bad]} is outside the vocabulary (size ${vocabSize})`);
  });
}

// The row seeds come from the one seed mixer; re-exported because generation's batches must seed rows the same way.
export { rowSeed } from '@rl/service-kit/core';
