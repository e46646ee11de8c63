import type { BudgetPool, ServiceMetrics } from '@rl/shared';
import { listDataSources, resolveDataSource } from './core/registry.ts';
import { scoreBatch, type BatchItem, type LocalOutcome, type LocalTask, type SlotResult } from './core/score-batch.ts';

/** The one entry point both edges (HTTP and NATS) call. */
export interface ScoreService {
  score(items: ReadonlyArray<BatchItem>, signal?: AbortSignal): Promise<SlotResult[]>;
  dataSources(): ReturnType<typeof listDataSources>;
}

/** Dependencies of {@link createScoreService}, built in `main.ts`. */
export interface ScoreServiceDeps {
  pool: BudgetPool<LocalTask, SlotResult>;
  runRemote: (subject: string, items: BatchItem[], signal: AbortSignal | undefined) => Promise<SlotResult[]>;
  metrics: ServiceMetrics;
  defaultTimeoutMs: number;
}

/** Binds the pure batch logic to the worker pool, the forwarder and the metrics. */
export function createScoreService(deps: ScoreServiceDeps): ScoreService {
  const { pool, runRemote, metrics, defaultTimeoutMs } = deps;
  return {
    async score(items, signal) {
      const results = await scoreBatch(
        items,
        {
          route: resolveDataSource,
          runLocal: (tasks, s) => pool.run(tasks, s) as Promise<LocalOutcome[]>,
          runRemote,
          defaultTimeoutMs,
        },
        signal,
      );
      for (const r of results) if ('error' in r) metrics.itemErrors.inc({ code: r.error.code });
      return results;
    },
    dataSources: listDataSources,
  };
}
