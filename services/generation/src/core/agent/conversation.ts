import type { ChatMessage, SamplingParams } from '../policy-types.ts';
import type { AssistantTurn } from './assistant-turn.ts';

/** One model turn as the agent loop sees it: its message (appended to the conversation) and tool calls. */
export interface ModelTurn extends AssistantTurn {
  finishReason: 'stop' | 'length';
  tokenCount: number;
}

/** Environment messages rendered for the model, appended only on `commit()`. */
export interface EnvRender {
  tokenCount: number;
  commit(): void;
}

/** The token-level fields of a trajectory (empty when the backend gives text only). */
export interface TokenFields {
  prompt_ids: number[];
  response_ids: number[];
  response_mask: number[];
  response_logprobs: number[];
}

/**
 * A conversation being rolled out: the message list plus, at the token level,
 * the prompt and response ids, the mask (1 model, 0 environment) and log-probs
 * (0 where the mask is 0). Agent loops drive it without knowing the backend.
 */
export interface Conversation {
  readonly tokenLevel: boolean;
  readonly modelVersion: string;
  readonly messages: readonly ChatMessage[];
  promptLength(): number;
  /** Response tokens so far, model and environment. */
  responseLength(): number;
  /** Tokens the next model turn may take under the backend's sequence limit. */
  sequenceRoom(): number;
  generate(params: SamplingParams, signal?: AbortSignal): Promise<ModelTurn>;
  renderEnv(messages: readonly ChatMessage[]): Promise<EnvRender>;
  /** The token fields, the response cut to `maxResponseTokens` (verl's final `[:response_length]`). */
  fields(maxResponseTokens: number): TokenFields;
}
