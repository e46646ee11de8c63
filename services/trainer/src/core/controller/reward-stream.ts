// Rewards requested while the rollouts are still being generated, and each
// distinct item scored once. The step offers each finished trajectory's item as
// it arrives; offered items go out together in the next scoring call, with at
// most `maxInFlight` calls outstanding, so the batches grow with the backlog and
// the reward stage that remains after generation is the tail. Results are kept
// by index: what a step reads does not depend on the arrival order or batching.
import type { RewardItem, RewardResult } from '@rl/client';

/** The part of the reward client the stream uses. */
export interface ItemScorer {
  score(items: readonly RewardItem[], options?: { signal?: AbortSignal }): Promise<{ results: RewardResult[] }>;
}

/**
 * Results by item identity. Within a step (and across retries of that step)
 * every item with the same identity shares one scoring; across steps, a result
 * stays only when its service said its scoring is deterministic.
 */
export interface RewardCache {
  /** Enters step `step`: entries of an earlier step that are not reusable go; a retry of the same step keeps them. */
  startStep(step: number): void;
  lookup(key: string): Promise<RewardResult> | undefined;
  store(key: string, result: Promise<RewardResult>): void;
}

/** Step-scoped sharing, plus up to `maxReusable` results of deterministic scorers kept across steps (oldest dropped first). */
export function createRewardCache(options: { acrossSteps: boolean; maxReusable: number }): RewardCache {
  let step: number | undefined;
  let current = new Map<string, Promise<RewardResult>>();
  const reusable = new Map<string, RewardResult>();
  return {
    startStep(next) {
      if (next !== step) current = new Map();
      step = next;
    },
    lookup(key) {
      const kept = reusable.get(key);
      return kept !== undefined ? Promise.resolve(kept) : current.get(key);
    },
    store(key, result) {
      const map = current;
      map.set(key, result);
      result.then(
        (r) => {
          if (!options.acrossSteps || r.deterministic !== true || r.error !== null) return;
          reusable.set(key, r);
          if (reusable.size > options.maxReusable) reusable.delete(reusable.keys().next().value!);
        },
        // A failed scoring is not an answer: a retry of the step asks again.
        () => {
          if (map.get(key) === result) map.delete(key);
        },
      );
    },
  };
}

/** A cache that shares nothing (reward.cache: false): every item is scored. */
export const NO_REWARD_CACHE: RewardCache = { startStep: () => {}, lookup: () => undefined, store: () => {} };

/** How a step requests its rewards (reward.stream, reward.cache, reward.concurrency). */
export interface RewardFlow {
  /** Offer each rollout's item as the generation service hands it over. */
  streaming: boolean;
  cache: RewardCache;
  /** Scoring calls in flight at once. */
  maxInFlight: number;
}

/**
 * The identity of an item as a scorer sees it: its data_source, response text, ground truth, extra_info,
 * params, style and prompt. Items carrying story signals (per-sample log-probs) have none: never shared.
 */
export function itemKey(item: RewardItem): string | undefined {
  if (item.signals !== undefined) return undefined;
  return JSON.stringify([
    item.data_source,
    item.solution_str,
    item.ground_truth ?? null,
    item.extra_info ?? null,
    item.params ?? null,
    item.style ?? null,
    item.prompt ?? null,
  ]);
}

/** Counters of one stream. */
export interface RewardStreamStats {
  /** Items offered. */
  items: number;
  /** Items answered from the cache or by an identical item of the same step. */
  hits: number;
  /** Scoring calls made. */
  calls: number;
}

/** Items in, results out by index. */
export interface RewardStream {
  /** Scores `item` as result `index` (each index once). */
  offer(index: number, item: RewardItem): void;
  /** Every offered item's result by index, once all are scored; rejects as the client's `score` does. */
  settle(): Promise<Map<number, RewardResult>>;
  readonly stats: Readonly<RewardStreamStats>;
}

interface Queued {
  item: RewardItem;
  resolve(result: RewardResult): void;
  reject(err: unknown): void;
}

/** A stream over `scorer`; `cache` shares results by {@link itemKey}. */
export function createRewardStream(scorer: ItemScorer, options: { maxInFlight: number; cache: RewardCache; signal: AbortSignal }): RewardStream {
  const { maxInFlight, cache, signal } = options;
  const stats: RewardStreamStats = { items: 0, hits: 0, calls: 0 };
  const results = new Map<number, Promise<RewardResult>>();
  let queue: Queued[] = [];
  let inFlight = 0;
  let pumpQueued = false;

  // Items offered in one turn of the event loop (a batch handed over at once, several progress messages) go together.
  const schedulePump = () => {
    if (pumpQueued) return;
    pumpQueued = true;
    queueMicrotask(() => {
      pumpQueued = false;
      pump();
    });
  };

  const pump = () => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue;
      queue = [];
      inFlight++;
      stats.calls++;
      scorer
        .score(
          batch.map((q) => q.item),
          { signal },
        )
        .then(
          ({ results: scored }) => batch.forEach((q, i) => q.resolve(scored[i]!)),
          (err: unknown) => batch.forEach((q) => q.reject(err)),
        )
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  };

  return {
    stats,
    offer(index, item) {
      stats.items++;
      const key = itemKey(item);
      const shared = key === undefined ? undefined : cache.lookup(key);
      if (shared !== undefined) {
        stats.hits++;
        results.set(index, shared);
        return;
      }
      const { promise, resolve, reject } = Promise.withResolvers<RewardResult>();
      promise.catch(() => {}); // observed by settle(); an abandoned step must not leave it unhandled
      if (key !== undefined) cache.store(key, promise);
      results.set(index, promise);
      queue.push({ item, resolve, reject });
      schedulePump();
    },
    async settle() {
      const entries = [...results];
      const values = await Promise.all(entries.map(([, p]) => p));
      return new Map(entries.map(([index], k) => [index, values[k]!]));
    },
  };
}
