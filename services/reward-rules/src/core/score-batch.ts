import { ErrorCode, type ErrorBody, ScoreRequest, type ScoreItem, parseJsonText, validationError } from '@rl/service-kit/core';
import { toItemError } from './item-error.ts';
import { resolveDataSource } from './registry.ts';
import { scoreItem } from './score-item.ts';

/** One slot of the response. */
export type SlotResult = { score: number; extra: Record<string, unknown> } | { error: ErrorBody };

/** An item the batch could not score here, to be forwarded to `subject`. */
export interface RemoteItem {
  index: number;
  subject: string;
  item: ScoreItem;
}

/** What a scored batch hands back to the edge. */
export interface BatchOutput {
  /** JSON array of {@link SlotResult}, in request order; remote slots hold a placeholder until merged. */
  resultsJson: string;
  remote: RemoteItem[];
  /** Count of per-item errors by code, for metrics. */
  errorCodes: Record<string, number>;
}

/** A batch being scored: validated items and their results so far. */
export interface BatchState {
  items: ScoreItem[];
  results: SlotResult[];
  remote: RemoteItem[];
  defaultTimeoutMs: number;
}

/** Parses and validates a request body; a bad body fails as a whole with a 400 naming the field. */
export function openBatch(text: string, defaultTimeoutMs: number): BatchState {
  const parsed = ScoreRequest.safeParse(parseJsonText(text));
  if (!parsed.success) throw validationError(parsed.error);
  const items = parsed.data.items;
  return { items, results: new Array(items.length), remote: [], defaultTimeoutMs };
}

/** The time budget of item `i`: its `params.timeout_ms`, else the service default. */
export function itemBudgetMs(state: BatchState, i: number): number {
  const t = state.items[i]?.params?.timeout_ms;
  return typeof t === 'number' ? t : state.defaultTimeoutMs;
}

/**
 * Scores item `i` in place. Routing follows verl's `default_compute_score`;
 * remote data sources are set aside for forwarding; every failure becomes the
 * item's own `{error: {code, message}}` slot, never an exception.
 */
export function scoreBatchItem(state: BatchState, i: number): void {
  const item = state.items[i] as ScoreItem;
  try {
    const route = resolveDataSource(item.data_source);
    if (route.kind === 'remote') {
      state.remote.push({ index: i, subject: route.subject, item });
      state.results[i] = { error: { code: ErrorCode.SandboxUnavailable, message: 'not forwarded yet' } };
      return;
    }
    let params = item.params;
    if (params !== undefined && 'timeout_ms' in params) {
      // Our budget, not a verl keyword: the scorer's strict schema would reject it.
      const { timeout_ms: _budget, ...verlParams } = params;
      params = verlParams;
    }
    state.results[i] = scoreItem({
      data_source: item.data_source,
      solution_str: item.solution_str,
      ground_truth: item.ground_truth,
      extra_info: item.extra_info ?? undefined,
      params,
    });
  } catch (err) {
    state.results[i] = toItemError(err);
  }
}

/** Records an item the worker pool abandoned: over its budget, or it killed its worker. */
export function skipBatchItem(state: BatchState, i: number, reason: 'timeout' | 'crashed'): void {
  state.results[i] =
    reason === 'timeout'
      ? { error: { code: ErrorCode.Timeout, message: `scoring exceeded its ${itemBudgetMs(state, i)} ms budget` } }
      : { error: { code: ErrorCode.ScorerFailed, message: 'scoring this item crashed its worker (e.g. out of memory)' } };
}

/** Serialises the batch for the edge. */
export function closeBatch(state: BatchState): BatchOutput {
  const errorCodes: Record<string, number> = {};
  const remote = new Set(state.remote.map((r) => r.index));
  state.results.forEach((r, i) => {
    if ('error' in r && !remote.has(i)) errorCodes[r.error.code] = (errorCodes[r.error.code] ?? 0) + 1;
  });
  return { resultsJson: JSON.stringify(state.results), remote: state.remote, errorCodes };
}
