// One input line of `rl-policy logprobs`: {"prompt_ids": [...], "response_ids": [...]},
// checked against the model it will be scored by. Errors name the line and the field.
import { AppError, ErrorCode, parseJsonText, validationError } from '@rl/service-kit/core';
import { z } from 'zod';
import type { TokenPair } from '../generation/score.ts';

const Ids = z.array(z.int().min(0));
const ScoreLine = z.strictObject({ prompt_ids: Ids.min(1), response_ids: Ids });

/** What a line's ids must fit. */
export interface ScoreLimits {
  vocabSize: number;
  maxSeqLen: number;
}

/** The pair of line `lineNo` (1-based) of the input. */
export function parseScoreLine(text: string, lineNo: number, limits: ScoreLimits): TokenPair {
  const where = `line ${lineNo}`;
  const parsed = ScoreLine.safeParse(parseJsonText(text, where));
  if (!parsed.success) throw validationError(parsed.error, where);
  const { prompt_ids: prompt, response_ids: response } = parsed.data;
  for (const [field, ids] of [
    ['prompt_ids', prompt],
    ['response_ids', response],
  ] as const) {
    const bad = ids.findIndex((id) => id >= limits.vocabSize);
    if (bad >= 0) {
      throw new AppError(
        ErrorCode.ValidationFailed,
        `${where}: ${field}[${bad}]: token id ${ids[bad]} is outside the model's vocabulary (vocab_size ${limits.vocabSize})`,
      );
    }
  }
  if (prompt.length + response.length > limits.maxSeqLen) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `${where}: prompt_ids + response_ids is ${prompt.length + response.length} tokens, more than the model's max_position_embeddings (${limits.maxSeqLen})`,
    );
  }
  return { prompt, response };
}
