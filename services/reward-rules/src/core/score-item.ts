import { AppError, ErrorCode, invalidParamsError } from '@rl/service-kit/core';
import { resolveDataSource } from './registry.ts';
import type { ScoreOutcome, Scorer } from './scorer.ts';

/** One item of a score request, in verl's field names. */
export interface ScoreItem {
  data_source: string;
  solution_str: string;
  ground_truth: unknown;
  extra_info?: Record<string, unknown>;
  params?: Record<string, unknown>;
}

const defaultParams = new WeakMap<Scorer, unknown>();

/** Parses `params` with the scorer's schema; a failure names the first failing key. */
function parseParams(scorer: Scorer, raw: Record<string, unknown> | undefined): unknown {
  // Most items carry no params: their parsed defaults are the same every time.
  const empty = raw === undefined || isEmpty(raw);
  if (empty && defaultParams.has(scorer)) return defaultParams.get(scorer);
  const parsed = scorer.params.safeParse(raw ?? {});
  if (parsed.success && empty) defaultParams.set(scorer, parsed.data);
  if (parsed.success) return parsed.data;
  throw invalidParamsError(parsed.error, ` (scorer ${scorer.name})`);
}

function isEmpty(o: Record<string, unknown>): boolean {
  for (const _ in o) return false;
  return true;
}

/** Scores one item locally, as verl `default_compute_score` would; throws AppError on bad input. */
export function scoreItem(item: ScoreItem): ScoreOutcome {
  const route = resolveDataSource(item.data_source);
  if (route.kind === 'remote') {
    // Isolated on purpose: the service shell will route these to the sandbox service.
    throw new AppError(ErrorCode.SandboxUnavailable, `data_source "${item.data_source}" is scored by ${route.subject}, which is not reachable from here`, {
      retryable: true,
    });
  }
  const { scorer } = route;
  const params = parseParams(scorer, item.params);
  let outcome: ScoreOutcome;
  try {
    outcome = scorer.score({
      solution: item.solution_str,
      groundTruth: item.ground_truth,
      params,
      extraInfo: item.extra_info,
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(ErrorCode.ScorerFailed, `scorer ${scorer.name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!Number.isFinite(outcome.score)) {
    throw new AppError(ErrorCode.ScorerFailed, `scorer ${scorer.name} returned a non-finite score`);
  }
  return outcome;
}
