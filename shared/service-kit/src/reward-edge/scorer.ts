import type { ProtocolSlot } from '../protocols/slot.ts';
import type { ScoreItem } from '../schemas/score.ts';
import type { RewardCallContext } from './call-context.ts';
import { dataSourceAttributes } from '../telemetry/spans.ts';
import { continueTrace } from './continue-trace.ts';

/** A core that scores parsed items of the service's own item schema; one slot per item, in order. */
export type ItemScorer<I> = (items: I[], ctx: RewardCallContext) => Promise<ReadonlyArray<ProtocolSlot>>;

/** The scorer behind the OpenRLHF and slime routes: items of the shared contract in, one slot per item out, in order. */
export type BatchScorer = ItemScorer<ScoreItem>;

/**
 * A core that takes the raw `ScoreRequest` body and answers the `ScoreResponse`
 * JSON text, for services that validate off the event loop (reward-rules' workers).
 */
export type RawScorer = (body: Uint8Array | string, ctx: RewardCallContext) => Promise<string>;

/** The OpenRLHF and slime edges over a raw core: their items go in as the same JSON body `/v1/score` takes. */
export function rawBatchScorer(scoreRaw: RawScorer): BatchScorer {
  return async (items, ctx) => (JSON.parse(await scoreRaw(JSON.stringify({ items }), ctx)) as { results: ProtocolSlot[] }).results;
}

/** `score`, each call continuing the caller's trace (see {@link continueTrace}). */
export function tracedBatchScorer(score: BatchScorer, edge: string): BatchScorer {
  return (items, ctx) =>
    continueTrace(ctx, { 'rl.edge': edge, ...dataSourceAttributes(items as ReadonlyArray<{ data_source?: unknown }>) }, () => score(items, ctx));
}
