// Batch module loaded by every scoring worker thread (see shared BudgetPool).
// The worker parses and validates the raw request itself, so the main thread
// only moves bytes; the pool's watchdog enforces each item's budget.
import type { BatchModule } from './worker-pool/protocol.ts';
import { closeBatch, itemBudgetMs, openBatch, scoreBatchItem, skipBatchItem, type BatchState } from '../core/score-batch.ts';

/** Configuration handed over by main.ts through the pool's `moduleData`. */
export interface ScoreWorkerData {
  defaultTimeoutMs: number;
}

let defaultTimeoutMs = 5000;
const decoder = new TextDecoder();

const scoreWorker: BatchModule<BatchState> = {
  init(data) {
    defaultTimeoutMs = (data as ScoreWorkerData).defaultTimeoutMs;
  },
  open: (payload) => openBatch(typeof payload === 'string' ? payload : decoder.decode(payload), defaultTimeoutMs),
  count: (state) => state.items.length,
  budgetMs: itemBudgetMs,
  run: scoreBatchItem,
  skip: skipBatchItem,
  close: closeBatch,
};

export const { init, open, count, budgetMs, run, skip, close } = scoreWorker;
