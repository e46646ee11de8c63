// A step's reward stage: items offered as the rollouts finish (reward.stream)
// and the rest after the log-prob pass, scored through a reward stream, read
// back in the batch's order. Streamed, the stage's span opens with the first
// scoring call and holds every call (they are made from the rollout port's
// callbacks, outside the step's async context, so they are bound to it); the
// stage's timing_s stays what the step waits after the log-prob pass.
import type { RewardClient, RewardItem, RewardResult } from '@rl/client';
import type { DatasetRow } from '../../data/dataset-row.ts';
import { NO_TRACE, type RolloutResult, type TracePort } from './ports.ts';
import { createRewardStream, NO_REWARD_CACHE, type ItemScorer, type RewardFlow, type RewardStream } from './reward-stream.ts';
import type { StorySignals } from './story-signals.ts';

/** The reward request of one rollout of `src`: verl compute_score's arguments. */
export function rewardItemOf(src: DatasetRow, r: RolloutResult, signals?: StorySignals): RewardItem {
  return {
    data_source: src.data_source,
    solution_str: r.text,
    ground_truth: src.ground_truth,
    extra_info: src.extra_info,
    style: src.reward_model?.['style'],
    prompt: src.prompt,
    ...(signals && { signals }),
  };
}

/** What the step needs of its reward stage. */
export interface RewardStage {
  /** For the rollout port: each finished rollout, offered at once when streaming (undefined when not). */
  onResult?: (index: number, r: RolloutResult) => void;
  /** Offers the ok rollouts not offered yet (with their story signals, by ok position) and reads every result in order. */
  finish(
    results: readonly RolloutResult[],
    signals?: ReadonlyArray<StorySignals | undefined>,
  ): Promise<Array<{ rollout: RolloutResult; result: RewardResult }>>;
  readonly stats: RewardStream['stats'];
  /** Whether the stage's span is already open (the step then times its tail without another). */
  readonly spanned: boolean;
  /** Ends the stage's span, whatever happened to the step. */
  close(): Promise<void>;
}

export interface RewardStageOptions {
  rewards: RewardClient;
  flow?: RewardFlow;
  rows: readonly DatasetRow[];
  step: number;
  /** Whether a row's data_source takes story signals (those wait for the log-prob pass). */
  needsSignals?: (dataSource: string) => boolean;
  trace: TracePort;
  signal: AbortSignal;
}

/**
 * Scores the rollouts that did not fail through the reward services, in one call (an errored reward counts 0
 * and is reported): a reward stage that streams nothing and shares nothing.
 */
export function scoreRollouts(rewards: RewardClient, rows: readonly DatasetRow[], results: readonly RolloutResult[], signal: AbortSignal) {
  return openRewardStage({ rewards, rows, step: 0, trace: NO_TRACE, signal }).finish(results);
}

export function openRewardStage(o: RewardStageOptions): RewardStage {
  const flow = o.flow ?? { streaming: false, cache: NO_REWARD_CACHE, maxInFlight: 1 };
  flow.cache.startStep(o.step);
  const spanDone = Promise.withResolvers<void>();
  let scorer: ItemScorer = o.rewards;
  const span = flow.streaming
    ? o.trace.span('reward', () => {
        scorer = { score: o.trace.bind((items: readonly RewardItem[], options?: { signal?: AbortSignal }) => o.rewards.score(items, options)) };
        return spanDone.promise;
      })
    : undefined;
  const stream = createRewardStream(scorer, { maxInFlight: flow.maxInFlight, cache: flow.cache, signal: o.signal });
  const offered = new Set<number>();
  const offer = (index: number, r: RolloutResult, signals?: StorySignals) => {
    offered.add(index);
    stream.offer(index, rewardItemOf(o.rows[r.row]!, r, signals));
  };
  return {
    stats: stream.stats,
    spanned: span !== undefined,
    ...(flow.streaming && {
      onResult: (index: number, r: RolloutResult) => {
        if (r.error === undefined && o.needsSignals?.(o.rows[r.row]!.data_source) !== true) offer(index, r);
      },
    }),
    async finish(results, signals) {
      const okIndex = results.flatMap((r, j) => (r.error === undefined ? [j] : []));
      okIndex.forEach((j, i) => {
        if (!offered.has(j)) offer(j, results[j]!, signals?.[i]);
      });
      const byIndex = await stream.settle();
      return okIndex.map((j) => ({ rollout: results[j]!, result: byIndex.get(j)! }));
    },
    async close() {
      spanDone.resolve();
      await span;
    },
  };
}
