import type { ErrorCode, ScoreRequest, ScoreResponse } from '@rl/service-kit';

/** One trajectory to score: the arguments of verl's `compute_score`. */
export interface RewardItem {
  data_source: string;
  solution_str: string;
  ground_truth: unknown;
  extra_info?: Record<string, unknown> | null;
  /** verl keyword options; merged over `reward.params[data_source]`. */
  params?: Record<string, unknown>;
  /** The row's `reward_model.style`: with a reward model configured, "rule" keeps the row on its data_source's route (reward-mix.ts). */
  style?: unknown;
  /** The row's prompt, sent as the conversation when the reward model scores the item. */
  prompt?: string | Array<{ role: string; content: string }>;
  /** Story signals of the reply (reward-story's `signals`), from the trainer's log-prob pass. */
  signals?: { logprobs_with_context: number[]; logprobs_without_context: number[]; entropies: number[] };
}

/**
 * The reward of one item: a score and the scorer's diagnostics, or the item's error (never both).
 * `deterministic`: the service said its scores depend on the item alone (ScoreResponse.deterministic).
 */
export type RewardResult =
  | { score: number; extra: Record<string, unknown>; error: null; deterministic?: boolean }
  | { score: null; extra: Record<string, unknown>; error: { code: ErrorCode | string; message: string }; deterministic?: boolean };

/** Sends one scoring request; the NATS one is `natsScoreTransport`, tests pass a fake. */
export type ScoreTransport = (subject: string, body: ScoreRequest, options: { timeoutMs: number; signal: AbortSignal }) => Promise<ScoreResponse>;

/** Counters of one `score` call, for metrics and logs. */
export interface RewardStats {
  /** Requests sent, retries included. */
  requests: number;
  /** Retries after retryable failures. */
  retries: number;
  /** Chunks split in two to isolate an item a service rejected as a whole. */
  splits: number;
  /** Items sent per subject (first attempts only). */
  itemsBySubject: Record<string, number>;
}

/** What a `score` call returns: results in input order and its counters. */
export interface RewardBatchResult {
  results: RewardResult[];
  stats: RewardStats;
}
