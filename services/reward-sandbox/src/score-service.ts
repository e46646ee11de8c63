import { AppError, ErrorCode, type RewardCallContext, type ScoreItem, type ScoreResult } from '@rl/service-kit';
import type { Executor } from './core/executor.ts';
import { toRunSpec, type RunDefaults } from './core/fusion.ts';
import { parseCodeParams } from './core/code/params.ts';
import { scoreCodeItem, type ExecuteFn } from './core/code/score-code.ts';
import { RunCodeRequest } from './schemas.ts';

/** Code-reward scoring shared by `POST /v1/score` and `reward.sandbox.score`. */
export interface ScoreService {
  score(items: ReadonlyArray<ScoreItem>, ctx?: RewardCallContext): Promise<ScoreResult[]>;
}

/** Options of {@link createScoreService}. */
export interface ScoreServiceOptions {
  executor: Executor;
  defaults: RunDefaults;
  /** Cases of one item running at once. */
  caseConcurrency: number;
}

/**
 * Scores every item concurrently (the execution queue bounds the real
 * parallelism). Each item runs its cases through the sandbox; when the queue
 * refuses a case as `busy`, the whole item answers `busy` instead of a score
 * distorted by unrun cases, so the caller can retry it.
 */
export function createScoreService({ executor, defaults, caseConcurrency }: ScoreServiceOptions): ScoreService {
  async function scoreOne(item: ScoreItem, signal: AbortSignal | undefined): Promise<ScoreResult> {
    // An error that says the item cannot be judged here (overload, a language this
    // instance lacks, bad limits) must not turn into unrun cases scored as failures.
    let fatal: AppError | undefined;
    const execute: ExecuteFn = async (req, caseSignal) => {
      if (fatal !== undefined) throw fatal;
      let spec: ReturnType<typeof toRunSpec>;
      try {
        spec = toRunSpec(RunCodeRequest.parse(req), defaults);
      } catch (err) {
        fatal = err instanceof AppError ? err : new AppError(ErrorCode.InvalidParams, `cannot run this item: ${String(err)}`);
        throw fatal;
      }
      try {
        return await executor.run(spec, caseSignal ?? signal);
      } catch (err) {
        // Anything else is the sandbox failing on this case: verl scores it -1.
        if (err instanceof AppError && FATAL_CODES.has(err.code)) fatal = err;
        throw err;
      }
    };
    try {
      const params = parseCodeParams(stripBudget(item.params));
      const outcome = await scoreCodeItem({ solution: item.solution_str, groundTruth: item.ground_truth, params }, execute, {
        maxParallelCases: caseConcurrency,
        ...(signal !== undefined ? { signal } : {}),
      });
      if (fatal !== undefined) return { error: { code: fatal.code, message: fatal.message } };
      return outcome;
    } catch (err) {
      if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
      return { error: { code: ErrorCode.ScorerFailed, message: err instanceof Error ? err.message : String(err) } };
    }
  }
  return {
    score: (items, ctx = {}) => Promise.all(items.map((item) => scoreOne(item, ctx.signal))),
  };
}

const FATAL_CODES: ReadonlySet<string> = new Set([ErrorCode.Busy, ErrorCode.UnsupportedLanguage, ErrorCode.ValidationFailed]);

/** `timeout_ms` is the shared contract's per-item budget; verl's code params do not know it. */
function stripBudget(params: Record<string, unknown> | undefined): Record<string, unknown> {
  if (params === undefined || !('timeout_ms' in params)) return params ?? {};
  const { timeout_ms: _budget, ...rest } = params;
  return rest;
}
