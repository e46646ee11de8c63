import type { Logger, RewardCallContext, ServiceMetrics } from '@rl/service-kit';
import type { Embedder } from './core/embedder.ts';
import type { FormatChecker } from './core/format/format-checker.ts';
import { scoreBatch, type StorySlot } from './core/score-batch.ts';
import type { RewardSettings } from './core/tuning.ts';
import type { StoryScoreItem } from './core/story-item.ts';

/** Story scoring shared by `POST /v1/score` and `reward.story.score`. */
export interface ScoreService {
  score(items: ReadonlyArray<StoryScoreItem>, ctx?: RewardCallContext): Promise<StorySlot[]>;
}

/** Dependencies of {@link createScoreService}, built in `main.ts`. */
export interface ScoreServiceDeps {
  /** Resolves once the model is loaded; requests that arrive earlier wait for it. */
  embedder: Promise<Embedder>;
  formats: FormatChecker;
  settings: RewardSettings;
  metrics: ServiceMetrics;
  logger: Logger;
}

/** Binds the reward core to the embedder, the format cache and the metrics. */
export function createScoreService({ embedder, formats, settings, metrics, logger }: ScoreServiceDeps): ScoreService {
  return {
    async score(items, ctx = {}) {
      logger.debug({ items: items.length, requestId: ctx.requestId }, 'batch received');
      const slots = await scoreBatch(items, { embedder: await embedder, formats, settings }, ctx.signal);
      for (const s of slots) if ('error' in s) metrics.itemErrors.inc({ code: s.error.code });
      return slots;
    },
  };
}
