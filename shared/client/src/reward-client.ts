import { AppError, ErrorCode, retry, runPool, type Rng, type ScoreItem } from '@rl/service-kit';
import { backoffDelayMs } from './backoff.ts';
import { MODEL_SUBJECT } from './default-routes.ts';
import { rewardTarget } from './reward-target.ts';
import { compileRoutes, resolveRoute } from './route-table.ts';
import type { RewardBatchResult, RewardItem, RewardResult, RewardStats, ScoreTransport } from './reward-types.ts';

/** Options of {@link createRewardClient} (the trainer fills them from its `reward.*` config keys). */
export interface RewardClientOptions {
  transport: ScoreTransport;
  /** data_source → subject (`name*` = prefix, `default` = fallback). */
  routes: Readonly<Record<string, string>>;
  /** Deadline of each request. */
  timeoutMs: number;
  /** Extra attempts after a failure whose AppError says `retryable`. */
  retries: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Most items per request. */
  maxBatchSize: number;
  /** Delay before the first retry, before jitter; doubles with each further one. */
  backoffMs: number;
  /** Cap of any retry delay. */
  maxBackoffMs: number;
  /** Jitter source. */
  rng: Rng;
  /** Default params per data_source. @default {} */
  defaultParams?: Readonly<Record<string, Record<string, unknown>>>;
  /** Name of the reward model at the reward-model service (`reward.reward_model`); null: off. @default null */
  rewardModel?: string | null;
  /** Params for every item sent on a subject, under the data_source's defaults. @default {} */
  subjectParams?: Readonly<Record<string, Record<string, unknown>>>;
  /** Waits between retries; tests pass an instant one. @default a timer that stops at the abort */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called before each retry (for logs). */
  onRetry?: (info: { subject: string; attempt: number; delayMs: number; items: number; error: AppError }) => void;
}

/** Scores trajectories over the reward services. */
export interface RewardClient {
  /** Scores `items`; results come back in input order. Rejects only when a service stays unreachable after all retries. */
  score(items: readonly RewardItem[], options?: { signal?: AbortSignal }): Promise<RewardBatchResult>;
}

interface Chunk {
  subject: string;
  indices: number[];
}

/** The row's conversation where the reward-model service reads it: `extra_info.messages` (chat) or `extra_info.prompt` (text). */
function withConversation(item: RewardItem): RewardItem['extra_info'] {
  if (item.prompt === undefined) return item.extra_info;
  return { ...item.extra_info, ...(typeof item.prompt === 'string' ? { prompt: item.prompt } : { messages: item.prompt }) };
}

/**
 * A transport failure as an AppError. Typed ones keep their code and their own
 * `retryable` (the kit's table: no_responders, timeout, busy, unavailable and
 * sandbox_unavailable may succeed later); anything else (a dropped connection,
 * a bug) becomes a retryable `unavailable`, as the kit's mapRequestError does.
 */
function asAppError(err: unknown, subject: string): AppError {
  if (err instanceof AppError) return err;
  return new AppError(ErrorCode.Unavailable, `request on ${subject} failed: ${String(err)}`, { retryable: true, cause: err });
}

function itemError(code: string, message: string): RewardResult {
  return { score: null, extra: {}, error: { code, message } };
}

/**
 * Creates a reward client: items are grouped by route, split into
 * chunks of at most `maxBatchSize`, and sent concurrently. Retryable failures
 * (the error's own `retryable`: busy, timeout, no_responders, unavailable,
 * sandbox_unavailable, any untyped transport failure) are retried with exponential
 * backoff and seeded jitter, which is safe because scoring is idempotent. A
 * chunk a service rejects as a whole is split until the bad item is alone,
 * and that item alone gets the error.
 */
export function createRewardClient(options: RewardClientOptions): RewardClient {
  const { transport, timeoutMs, retries, concurrency, maxBatchSize, rng, defaultParams = {}, subjectParams = {}, rewardModel = null, sleep, onRetry } = options;
  const table = compileRoutes(options.routes);
  const backoff = { baseMs: options.backoffMs, maxMs: options.maxBackoffMs };

  // reward-story's items extend the shared ScoreItem with `signals`.
  // A reward-model item names its model and carries its conversation; story signals are for the routed ones.
  const toScoreItem = (item: RewardItem, subject: string): ScoreItem & Pick<RewardItem, 'signals'> => {
    const target = rewardTarget(item.style, rewardModel);
    const model = target.kind === 'model' ? { model: target.model } : {};
    const params = { ...subjectParams[subject], ...defaultParams[item.data_source], ...item.params, ...model };
    const extraInfo = target.kind === 'model' ? withConversation(item) : item.extra_info;
    return {
      data_source: item.data_source,
      solution_str: item.solution_str,
      // The wire schema only forbids undefined; a missing ground truth travels as null.
      ground_truth: (item.ground_truth ?? null) as ScoreItem['ground_truth'],
      ...(extraInfo === undefined ? {} : { extra_info: extraInfo }),
      ...(Object.keys(params).length === 0 ? {} : { params }),
      ...(item.signals && target.kind === 'route' && { signals: item.signals }),
    };
  };

  return {
    async score(items, { signal } = {}) {
      const results: Array<RewardResult | undefined> = new Array(items.length);
      const stats: RewardStats = { requests: 0, retries: 0, splits: 0, itemsBySubject: {} };
      const bySubject = new Map<string, number[]>();
      for (const [i, item] of items.entries()) {
        const subject = rewardTarget(item.style, rewardModel).kind === 'model' ? MODEL_SUBJECT : resolveRoute(table, item.data_source);
        if (subject === undefined) {
          results[i] = itemError(ErrorCode.UnknownDataSource, `no reward route for data_source "${item.data_source}" (add it to reward.routes, or a default)`);
          continue;
        }
        let list = bySubject.get(subject);
        if (list === undefined) bySubject.set(subject, (list = []));
        list.push(i);
      }
      const chunks: Chunk[] = [];
      for (const [subject, indices] of bySubject) {
        stats.itemsBySubject[subject] = indices.length;
        for (let k = 0; k < indices.length; k += maxBatchSize) chunks.push({ subject, indices: indices.slice(k, k + maxBatchSize) });
      }

      const runChunk = async (chunk: Chunk, push: (c: Chunk) => void, abort: AbortSignal): Promise<void> => {
        const body = { items: chunk.indices.map((i) => toScoreItem(items[i] as RewardItem, chunk.subject)) };
        let attempts = 0;
        const send = async () => {
          attempts++;
          stats.requests++;
          let reply: Awaited<ReturnType<ScoreTransport>>;
          try {
            reply = await transport(chunk.subject, body, { timeoutMs, signal: abort });
          } catch (err) {
            abort.throwIfAborted();
            throw asAppError(err, chunk.subject);
          }
          if (reply.results.length !== chunk.indices.length) {
            throw new AppError(ErrorCode.UpstreamError, `${chunk.subject} returned ${reply.results.length} results for ${chunk.indices.length} items`);
          }
          return reply;
        };
        try {
          const reply = await retry(send, {
            retries,
            isRetryable: (err) => err instanceof AppError && err.retryable,
            delayMs: (attempt) => backoffDelayMs(attempt - 1, backoff, rng),
            signal: abort,
            ...(sleep && { sleep: (ms: number) => sleep(ms, abort) }),
            onRetry: ({ attempt, delayMs, error }) => {
              stats.retries++;
              onRetry?.({ subject: chunk.subject, attempt, delayMs, items: chunk.indices.length, error: error as AppError });
            },
          });
          for (const [k, r] of reply.results.entries()) {
            results[chunk.indices[k] as number] =
              'error' in r
                ? itemError(r.error.code, r.error.message)
                : { score: r.score, extra: r.extra, error: null, ...(reply.deterministic === true && { deterministic: true }) };
          }
        } catch (err) {
          abort.throwIfAborted();
          const error = asAppError(err, chunk.subject);
          if (error.retryable) {
            throw new AppError(
              error.code,
              `rewards on ${chunk.subject}: gave up after ${attempts} attempts for ${chunk.indices.length} items: ${error.message}`,
              {
                retryable: true,
                cause: error,
                details: { subject: chunk.subject, attempts, items: chunk.indices.length },
              },
            );
          }
          if (chunk.indices.length > 1) {
            // The service refused the whole request (e.g. one oversized item): halve it until the culprit is alone.
            const mid = Math.ceil(chunk.indices.length / 2);
            stats.splits++;
            push({ subject: chunk.subject, indices: chunk.indices.slice(0, mid) });
            push({ subject: chunk.subject, indices: chunk.indices.slice(mid) });
          } else {
            results[chunk.indices[0] as number] = itemError(error.code, error.message);
          }
        }
      };

      await runPool(chunks, concurrency, runChunk, signal);
      return { results: results.map((r) => r ?? itemError(ErrorCode.Internal, 'item was not scored')), stats };
    },
  };
}
