// Loaded inside each scoring worker thread by the shared BudgetPool.
import { ErrorCode, AppError, toErrorBody } from '@rl/shared/errors';
import { scoreItem } from '../core/score-item.ts';
import type { LocalTask, SlotResult } from '../core/score-batch.ts';

/** Scores one item; every failure becomes the item's own error slot. */
export function handle(task: LocalTask): SlotResult {
  try {
    return scoreItem(task);
  } catch (err) {
    if (err instanceof AppError) return { error: toErrorBody(err) };
    // A scorer bug or an input verl itself would raise on: report it, never crash the worker.
    return { error: { code: ErrorCode.ScorerFailed, message: err instanceof Error ? err.message : String(err) } };
  }
}
