// The port every scoring backend of the reward-model service implements: trained
// reward models (src/models) and LLM judges (src/judges). The service routes each
// item to one backend by name and never looks inside it.
import type { ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage } from '@rl/policy';

export type { ChatMessage };

/**
 * One item as a backend sees it. `messages` is the conversation before the
 * response (from `extra_info.messages`, else `extra_info.prompt` as a chat or
 * a string taken as one user turn; empty when the item carries neither).
 */
export interface ModelItem {
  dataSource: string;
  messages: ChatMessage[];
  response: string;
  /** The reference as text (a string ground truth, or other JSON stringified); absent when null. */
  groundTruth?: string;
  extraInfo: Record<string, unknown>;
}

/** One item's result: a score, or an error with a stable code; `extra` carries diagnostics either way. */
export type ItemOutcome = { score: number; extra?: Record<string, unknown> } | { error: { code: ErrorCode; message: string }; extra?: Record<string, unknown> };

/** A reward model or a judge, selected by `name` from an item's `params.model`/`params.judge` or the data-source map. */
export interface RewardBackend {
  readonly name: string;
  readonly kind: 'reward_model' | 'judge';
  /** Outcomes in the items' order, one per item; one failing item is that item's error, never a rejection. */
  score(items: readonly ModelItem[], signal: AbortSignal): Promise<ItemOutcome[]>;
  /** For /readyz: loaded and its upstreams reachable. */
  ready(): boolean;
  close(): Promise<void>;
}
