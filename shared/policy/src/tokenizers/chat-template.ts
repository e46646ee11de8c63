import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage, Tokenizer } from '../types.ts';

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * ChatML (as Qwen chat models use it): `<|im_start|>{role}\n{content}<|im_end|>\n`
 * per message, and `<|im_start|>assistant\n` to open the model's turn. Message
 * text is encoded without specials, so content can never inject a turn marker.
 */
export function renderChatMl(tokenizer: Tokenizer, messages: readonly ChatMessage[], addGenerationPrompt: boolean): number[] {
  const start = tokenizer.special['<|im_start|>'];
  const end = tokenizer.special['<|im_end|>'];
  if (start === undefined || end === undefined) {
    throw new AppError(ErrorCode.Internal, 'tokenizer has no <|im_start|>/<|im_end|> specials for ChatML');
  }
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (!ROLES.has(m.role)) throw new AppError(ErrorCode.BadRequest, `messages[${i}].role must be one of ${[...ROLES].join(', ')}`);
    if (typeof m.content !== 'string') throw new AppError(ErrorCode.BadRequest, `messages[${i}].content must be a string`);
    out.push(start, ...tokenizer.encode(`${m.role}\n${m.content}`), end, ...tokenizer.encode('\n'));
  });
  if (addGenerationPrompt) out.push(start, ...tokenizer.encode('assistant\n'));
  return out;
}
