// One batch through the backends: each item routed, the items of each backend
// scored in one call (in request order within it), every result put back in
// its slot. A bad item, or a backend that throws, fails only its own items.
import { AppError, ErrorCode, type ScoreItem } from '@rl/service-kit/core';
import type { ItemOutcome, ModelItem, RewardBackend } from './backend.ts';
import { toModelItem } from './model-item.ts';
import { routeItem, type Routes } from './routing.ts';

function errorOutcome(err: unknown): ItemOutcome {
  if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
  return { error: { code: ErrorCode.Internal, message: err instanceof Error ? err.message : String(err) } };
}

function checkOutcomes(backend: RewardBackend, outcomes: readonly ItemOutcome[], n: number): readonly ItemOutcome[] {
  if (outcomes.length !== n) throw new AppError(ErrorCode.Internal, `backend ${backend.name} answered ${outcomes.length} results for ${n} items`);
  return outcomes;
}

/** Scores `items` (results in request order, one per item). */
export async function scoreBatch(items: readonly ScoreItem[], routes: Routes, signal: AbortSignal): Promise<ItemOutcome[]> {
  const slots: Array<ItemOutcome | undefined> = new Array(items.length);
  const groups = new Map<RewardBackend, { at: number[]; items: ModelItem[] }>();
  items.forEach((item, i) => {
    try {
      const backend = routeItem(routes, item.data_source, item.params);
      const modelItem = toModelItem(item);
      const group = groups.get(backend) ?? { at: [], items: [] };
      group.at.push(i);
      group.items.push(modelItem);
      groups.set(backend, group);
    } catch (err) {
      slots[i] = errorOutcome(err);
    }
  });
  await Promise.all(
    [...groups].map(async ([backend, group]) => {
      let outcomes: readonly ItemOutcome[];
      try {
        outcomes = checkOutcomes(backend, await backend.score(group.items, signal), group.items.length);
      } catch (err) {
        const failed = errorOutcome(err);
        outcomes = group.items.map(() => failed);
      }
      group.at.forEach((slot, k) => {
        slots[slot] = outcomes[k];
      });
    }),
  );
  return slots.map((s) => s ?? { error: { code: ErrorCode.Internal, message: 'item left unscored' } });
}
