// Loaded inside each scoring worker thread by the shared BudgetPool.
import { scoreItem } from '../core/score-item.ts';
import { toItemError, type LocalTask, type SlotResult } from '../core/score-batch.ts';

/** Scores one item; every failure becomes the item's own error slot, never a crashed worker. */
export function handle(task: LocalTask): SlotResult {
  try {
    return scoreItem(task);
  } catch (err) {
    return toItemError(err);
  }
}
