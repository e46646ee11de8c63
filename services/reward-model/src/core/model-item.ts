// The shared batch contract's item as a backend sees it. The contract has no
// prompt field: the conversation comes from `extra_info.messages` (verl's
// `raw_prompt`, a chat), else `extra_info.prompt` (a chat, or a string taken
// as one user turn), as verl's reward-model worker re-renders `raw_prompt`.
import { AppError, ErrorCode, type ScoreItem } from '@rl/service-kit/core';
import { z } from 'zod';
import type { ChatMessage, ModelItem } from './backend.ts';

const Message = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
});
const Chat = z.array(Message).max(1024);

function chatAt(extra: Record<string, unknown>, key: 'messages' | 'prompt'): ChatMessage[] | undefined {
  const value = extra[key];
  if (value === undefined || value === null) return undefined;
  if (key === 'prompt' && typeof value === 'string') return [{ role: 'user', content: value }];
  const parsed = Chat.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `[${issue.path.join('][')}]`;
    throw new AppError(
      ErrorCode.InvalidParams,
      `extra_info.${key}${where}: ${issue?.message ?? 'invalid'} (a list of {role, content} chat messages${key === 'prompt' ? ', or a string' : ''})`,
    );
  }
  return parsed.data as ChatMessage[];
}

function referenceText(groundTruth: unknown): string | undefined {
  if (groundTruth === null || groundTruth === undefined) return undefined;
  return typeof groundTruth === 'string' ? groundTruth : JSON.stringify(groundTruth);
}

/** `item` as a {@link ModelItem}; a malformed `extra_info.messages`/`prompt` throws `invalid_params` naming it. */
export function toModelItem(item: ScoreItem): ModelItem {
  const extraInfo = item.extra_info ?? {};
  const messages = chatAt(extraInfo, 'messages') ?? chatAt(extraInfo, 'prompt') ?? [];
  const groundTruth = referenceText(item.ground_truth);
  return {
    dataSource: item.data_source,
    messages,
    response: item.solution_str,
    ...(groundTruth !== undefined && { groundTruth }),
    extraInfo,
  };
}
