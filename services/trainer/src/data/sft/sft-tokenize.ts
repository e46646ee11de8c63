// An SFT example as the policy trains on it: the prompt (chat template up to
// the first assistant turn the loss covers, generation prompt included) and
// the response tokens after it, each with a loss flag. Assistant content and
// its end-of-turn token are learned (verl: response + EOS); the template's
// headers and every other turn are context.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { PolicyTokenizer } from '@rl/policy';
import type { SftExample } from './sft-example.ts';

/** Token ids of one sample. */
export interface SftSequence {
  row_id: number;
  prompt: number[];
  response: number[];
  /** 1 where the response token is learned. */
  lossMask: number[];
}

/** verl `data.truncation`. */
export type Truncation = 'error' | 'left' | 'right';

function header(tok: PolicyTokenizer, role: string): number[] {
  return [tok.special['<|im_start|>']!, ...tok.encode(`${role}\n`)];
}

/** Tokenizes one example and fits it into `maxLength` tokens. */
export function tokenizeSft(example: SftExample, tok: PolicyTokenizer, maxLength: number, truncation: Truncation): SftSequence {
  const { messages } = example;
  const firstLearned = example.lossOn === 'last' ? messages.length - 1 : messages.findIndex((m) => m.role === 'assistant');
  const prompt = tok.applyChatTemplate(messages.slice(0, firstLearned), { addGenerationPrompt: true });
  const response: number[] = [];
  const lossMask: number[] = [];
  const push = (ids: readonly number[], learned: boolean) => {
    response.push(...ids);
    for (let i = 0; i < ids.length; i++) lossMask.push(learned ? 1 : 0);
  };
  const end = tok.eosId;
  const newline = tok.encode('\n');
  for (let i = firstLearned; i < messages.length; i++) {
    const m = messages[i]!;
    const learned = m.role === 'assistant' && (example.lossOn === 'all' || i === messages.length - 1);
    if (i > firstLearned) push(header(tok, m.role), false);
    push([...tok.encode(m.content), end], learned);
    if (i < messages.length - 1) push(newline, false);
  }
  return fit({ row_id: example.row_id, prompt, response, lossMask }, maxLength, truncation);
}

function fit(s: SftSequence, maxLength: number, truncation: Truncation): SftSequence {
  const total = s.prompt.length + s.response.length;
  if (total <= maxLength) return s;
  if (truncation === 'error') {
    throw new AppError(
      ErrorCode.BadRequest,
      `row ${s.row_id}: ${total} tokens, more than data.max_length (${maxLength}); raise it or set data.truncation to left or right`,
      {
        details: { row: s.row_id, tokens: total, max_length: maxLength },
      },
    );
  }
  if (truncation === 'right') {
    // The prompt keeps at least one token: a response token needs something to be predicted from.
    const prompt = s.prompt.slice(0, Math.max(1, Math.min(s.prompt.length, maxLength)));
    const keep = Math.max(0, maxLength - prompt.length);
    return { ...s, prompt, response: s.response.slice(0, keep), lossMask: s.lossMask.slice(0, keep) };
  }
  // left: drop from the start; when the prompt is used up, the first kept response token becomes the prompt (and is not learned).
  let drop = total - maxLength;
  const fromPrompt = Math.min(drop, s.prompt.length - 1);
  let prompt = s.prompt.slice(fromPrompt);
  drop -= fromPrompt;
  if (drop === 0) return { ...s, prompt };
  // [last prompt token, r0, r1, ...] loses its first `drop` tokens; the new first token is the prompt.
  const response = s.response.slice(drop - 1);
  const lossMask = s.lossMask.slice(drop - 1);
  prompt = [response.shift()!];
  lossMask.shift();
  return { ...s, prompt, response, lossMask };
}
