import { validationError, type BatchScorer, type ProtocolSlot } from '@rl/service-kit';
import { StoryScoreItem } from './core/story-item.ts';
import type { ScoreService } from './score-service.ts';

/**
 * Story scoring for the OpenRLHF and slime edges. Their items come from labels
 * (context in `extra_info`), so an item that is not a valid story item is that
 * sample's `validation_failed` error (reward 0, flagged), not a failed batch.
 */
export function storyProtocolScorer(svc: ScoreService): BatchScorer {
  return async (items, ctx) => {
    const parsed = items.map((item) => StoryScoreItem.safeParse(item));
    const valid = parsed.flatMap((p) => (p.success ? [p.data] : []));
    const scored = valid.length === 0 ? [] : await svc.score(valid, ctx);
    let next = 0;
    return parsed.map((p): ProtocolSlot => {
      if (!p.success) {
        const err = validationError(p.error, 'story item');
        return { error: { code: err.code, message: err.message } };
      }
      return scored[next++]!;
    });
  };
}
