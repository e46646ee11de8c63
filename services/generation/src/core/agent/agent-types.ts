import type { Interaction } from '../interactions/interaction.ts';
import type { ChatMessage, SamplingParams } from '../policy-types.ts';
import type { ToolCallRecord, TruncateSide } from '../tools/run-tool.ts';
import type { Tool } from '../tools/tool.ts';
import type { Conversation, TokenFields } from './conversation.ts';

/** Limits of one trajectory (verl's `rollout.response_length` and `multi_turn.*`). */
export interface AgentLimits {
  /** Response budget: model plus environment tokens (verl's `response_length`). */
  maxResponseTokens: number;
  /** null: no limit. */
  maxAssistantTurns: number | null;
  /** null: no limit. */
  maxUserTurns: number | null;
  /** Tool calls run per assistant turn; the rest are ignored. */
  maxParallelCalls: number;
  /** Longest tool answer in code points before truncation. */
  maxToolResponseLength: number;
  toolResponseTruncateSide: TruncateSide;
}

/** Why a trajectory ended. */
export const StopReason = {
  /** The model ended its turn and nothing asked for another. */
  Stop: 'stop',
  /** The model's last turn hit its per-turn `max_tokens`. */
  Length: 'length',
  /** The response budget is used up (model or environment tokens). */
  ResponseBudget: 'response_budget',
  /** The backend's sequence limit left no room for another turn. */
  SequenceLimit: 'sequence_limit',
  MaxAssistantTurns: 'max_assistant_turns',
  MaxUserTurns: 'max_user_turns',
  /** The interaction ended the conversation (e.g. a correct gsm8k answer). */
  InteractionDone: 'interaction_done',
} as const;
/** Union of stop reasons. */
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

/** One sample as an agent loop runs it. */
export interface AgentInput {
  conversation: Conversation;
  /** Sampling parameters of every turn; `maxTokens` caps each turn. */
  sampling: SamplingParams;
  /** Seed of this trajectory (turn seeds derive from it), if the request gave one. */
  seed: number | undefined;
  limits: AgentLimits;
  /** The sample's `tools_kwargs`. */
  toolsKwargs: Record<string, unknown>;
  /** The sample's interaction and its `interaction_kwargs`, when it names one. */
  interaction: { impl: Interaction; kwargs: Record<string, unknown> } | undefined;
  signal: AbortSignal;
}

/** What agent loops share: the tools and a deadline source. */
export interface AgentEnv {
  tools: ReadonlyMap<string, Tool>;
  /** A signal that aborts after `ms` (injected so tests control time). */
  deadline(ms: number): AbortSignal;
}

/** A finished trajectory, verl's `AgentLoopOutput` plus what the trainer and users want to see. */
export interface AgentOutput extends TokenFields {
  /** verl's `num_turns`: user + assistant turns + 1 (2 for a single turn). */
  num_turns: number;
  /** Interaction rewards, one per user turn that gave one (verl's `turn_scores`). */
  turn_scores: number[];
  /** Tool step rewards (verl's `tool_rewards`). */
  tool_rewards: number[];
  tool_calls: ToolCallRecord[];
  num_tool_calls: number;
  num_tool_errors: number;
  messages: ChatMessage[];
  stop_reason: StopReason;
  /** False when the backend gave text only (token fields empty). */
  token_level: boolean;
  model_version: string;
}

/** An agent loop, registered under verl's `agent_name`. */
export type AgentLoop = (input: AgentInput, env: AgentEnv) => Promise<AgentOutput>;
