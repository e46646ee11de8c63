import { AppError, ErrorCode, type ErrorBody } from '@rl/shared/errors';

/** One request item after edge validation (the shape of the shared `ScoreItem`). */
export interface BatchItem {
  data_source: string;
  solution_str: string;
  ground_truth: unknown;
  extra_info?: Record<string, unknown> | null | undefined;
  params?: Record<string, unknown> | undefined;
}

/** What a worker scores: the item without `timeout_ms`, which is ours, not verl's. */
export interface LocalTask {
  data_source: string;
  solution_str: string;
  ground_truth: unknown;
  extra_info: Record<string, unknown> | undefined;
  params: Record<string, unknown>;
}

/** One slot of the response. */
export type SlotResult = { score: number; extra: Record<string, unknown> } | { error: ErrorBody };

/** Outcome of a budgeted local run (mirrors the worker pool's). */
export type LocalOutcome = { status: 'ok'; value: SlotResult } | { status: 'timeout' } | { status: 'failed'; message: string };

/** Where a data source is scored. */
export type Route = { kind: 'local' } | { kind: 'remote'; subject: string };

/** The I/O a batch needs, injected so this logic is testable without threads or NATS. */
export interface ScoreBatchDeps {
  /** Resolves a data source; throws an {@link AppError} (e.g. `unknown_data_source`) for unknown ones. */
  route(dataSource: string): Route;
  /** Scores local tasks on budgeted workers. */
  runLocal(tasks: Array<{ input: LocalTask; budgetMs: number }>, signal: AbortSignal | undefined): Promise<LocalOutcome[]>;
  /** Scores items on another service; throws an {@link AppError} when it cannot be reached. */
  runRemote(subject: string, items: BatchItem[], signal: AbortSignal | undefined): Promise<SlotResult[]>;
  /** Budget of an item whose `params.timeout_ms` is absent. */
  defaultTimeoutMs: number;
}

/**
 * Scores a batch: routes each item by `data_source`, runs local ones on the
 * worker pool with their time budgets and forwards remote ones, then puts every
 * result back in request order. An item never fails the batch: problems become
 * `{error: {code, message}}` in its own slot.
 */
export async function scoreBatch(items: ReadonlyArray<BatchItem>, deps: ScoreBatchDeps, signal?: AbortSignal): Promise<SlotResult[]> {
  const results: SlotResult[] = new Array(items.length);
  const local: Array<{ index: number; input: LocalTask; budgetMs: number }> = [];
  const remote = new Map<string, number[]>();

  items.forEach((item, index) => {
    let route: Route;
    try {
      route = deps.route(item.data_source);
    } catch (err) {
      results[index] = toItemError(err);
      return;
    }
    if (route.kind === 'remote') {
      const list = remote.get(route.subject) ?? [];
      list.push(index);
      remote.set(route.subject, list);
      return;
    }
    const { timeout_ms: timeoutMs, ...params } = item.params ?? {};
    local.push({
      index,
      budgetMs: typeof timeoutMs === 'number' ? timeoutMs : deps.defaultTimeoutMs,
      input: { data_source: item.data_source, solution_str: item.solution_str, ground_truth: item.ground_truth, extra_info: item.extra_info ?? undefined, params },
    });
  });

  const jobs: Array<Promise<void>> = [];
  if (local.length > 0) {
    jobs.push(
      deps.runLocal(local, signal).then((outcomes) => {
        outcomes.forEach((o, k) => {
          const index = local[k]?.index;
          if (index !== undefined) results[index] = fromLocal(o, local[k]?.budgetMs ?? 0);
        });
      }),
    );
  }
  for (const [subject, indexes] of remote) {
    jobs.push(forward(subject, indexes));
  }
  await Promise.all(jobs);
  return results;

  async function forward(subject: string, indexes: number[]): Promise<void> {
    try {
      const out = await deps.runRemote(subject, indexes.map((i) => items[i] as BatchItem), signal);
      indexes.forEach((i, k) => {
        results[i] = out[k] ?? { error: { code: ErrorCode.Internal, message: 'remote service returned too few results' } };
      });
    } catch (err) {
      const body = remoteFailure(err, subject);
      for (const i of indexes) results[i] = { error: body };
    }
  }
}

function fromLocal(o: LocalOutcome, budgetMs: number): SlotResult {
  if (o.status === 'ok') return o.value;
  if (o.status === 'timeout') return { error: { code: ErrorCode.Timeout, message: `scoring exceeded its ${budgetMs} ms budget` } };
  return { error: { code: ErrorCode.ScorerFailed, message: o.message } };
}

/** A forwarding failure: nobody listening is `sandbox_unavailable`, anything else keeps its code. */
function remoteFailure(err: unknown, subject: string): ErrorBody {
  if (err instanceof AppError && err.code === ErrorCode.NoResponders) {
    return { code: ErrorCode.SandboxUnavailable, message: `no service is serving ${subject}; start reward-sandbox to score code data sources` };
  }
  return toItemError(err).error;
}

/**
 * The per-item error slot of the batch contract: exactly `{error: {code, message}}`.
 * Errors that are not {@link AppError}s are scorer failures, reported with their message.
 */
export function toItemError(err: unknown): { error: ErrorBody } {
  if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
  return { error: { code: ErrorCode.ScorerFailed, message: err instanceof Error ? err.message : String(err) } };
}
