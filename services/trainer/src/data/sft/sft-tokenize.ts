// An SFT example as the policy trains on it: the prompt (chat template up to
// the first assistant turn the loss covers, generation prompt included) and
// the response tokens after it, each with a loss flag. As verl's multi-turn
// SFT dataset, each turn is the text the tokenizer's chat template adds for it
// (rendered with one more message); an assistant turn's generation prompt is
// context and its text through the end-of-turn token is learned (verl: response
// + EOS). The template's other text and every other turn are context.
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

/** Tokenizes one example and fits it into `maxLength` tokens. */
export function tokenizeSft(example: SftExample, tok: PolicyTokenizer, maxLength: number, truncation: Truncation): SftSequence {
  const { messages } = example;
  const firstLearned = example.lossOn === 'last' ? messages.length - 1 : messages.findIndex((m) => m.role === 'assistant');
  const render = (count: number, open: boolean) => tok.renderChatTemplate(messages.slice(0, count), { addGenerationPrompt: open });
  const ids = (text: string) => tok.encode(text, { allowSpecial: true });
  // The text message i adds; a template that renders earlier turns differently once more follow cannot be split into turns.
  const added = (before: string, after: string, i: number) => {
    if (!after.startsWith(before)) {
      throw new AppError(
        ErrorCode.BadRequest,
        `row ${example.row_id}: the chat template renders the turns before messages[${i}] differently once it follows, so the conversation cannot be split into turns`,
      );
    }
    return after.slice(before.length);
  };
  const eos = new Set(tok.eosIds);
  const prompt = tok.applyChatTemplate(messages.slice(0, firstLearned), { addGenerationPrompt: true });
  const response: number[] = [];
  const lossMask: number[] = [];
  const push = (part: readonly number[], learned: boolean) => {
    response.push(...part);
    for (let i = 0; i < part.length; i++) lossMask.push(learned ? 1 : 0);
  };
  let done = render(firstLearned, true);
  for (let i = firstLearned; i < messages.length; i++) {
    const last = i === messages.length - 1;
    const after = render(i + 1, false);
    if (messages[i]!.role !== 'assistant') {
      push(ids(added(done, after, i)), false);
      done = after;
      continue;
    }
    const opened = render(i, true);
    if (i > firstLearned) push(ids(added(done, opened, i)), false);
    const turn = ids(added(opened, after, i));
    const end = turn.findLastIndex((id) => eos.has(id));
    const learned = example.lossOn === 'all' || last;
    // A template without an end-of-turn token (the char tokenizer's) gets the EOS appended, as verl's SFTDataset does.
    push(end === -1 ? [...turn, tok.eosId] : turn.slice(0, end + 1), learned);
    // What follows the end of the final turn has nothing after it to predict.
    if (!last && end !== -1) push(turn.slice(end + 1), false);
    done = after;
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
