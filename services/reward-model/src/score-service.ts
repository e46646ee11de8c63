import type { Logger, RewardCallContext, ScoreItem, ServiceMetrics } from '@rl/service-kit';
import type { RewardBackend } from './core/backend.ts';
import type { Routes } from './core/routing.ts';
import { scoreBatch } from './core/score-batch.ts';
import type { BackendList, ModelSlot } from './schemas.ts';

/** Scoring shared by `POST /v1/score`, the protocol edges and `reward.model.score`. */
export interface ScoreService {
  score(items: readonly ScoreItem[], ctx?: RewardCallContext): Promise<ModelSlot[]>;
  backends(): BackendList;
}

/** Dependencies of {@link createScoreService}, built in `main.ts`. */
export interface ScoreServiceDeps {
  routes: Routes;
  metrics: ServiceMetrics;
  logger: Logger;
}

function dataSourcesOf(routes: Routes, backend: RewardBackend): string[] {
  return Object.entries(routes.dataSources)
    .filter(([, name]) => name === backend.name)
    .map(([source]) => source);
}

/** Binds the batch core to the configured backends and the metrics. */
export function createScoreService({ routes, metrics, logger }: ScoreServiceDeps): ScoreService {
  return {
    async score(items, ctx = {}) {
      logger.debug({ items: items.length, requestId: ctx.requestId }, 'batch received');
      const outcomes = await scoreBatch(items, routes, ctx.signal ?? new AbortController().signal);
      return outcomes.map((o): ModelSlot => {
        if ('error' in o) {
          metrics.itemErrors.inc({ code: o.error.code });
          return o.extra === undefined ? { error: o.error } : { error: o.error, extra: o.extra };
        }
        return { score: o.score, extra: o.extra ?? {} };
      });
    },
    backends: () => ({
      backends: [...routes.backends.values()].map((b) => ({ name: b.name, kind: b.kind, ready: b.ready(), data_sources: dataSourcesOf(routes, b) })),
    }),
  };
}
