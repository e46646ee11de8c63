import { z } from 'zod';
import type { StoryScoreItem } from '../src/core/story-item.ts';

/** Scores items through `POST /v1/score`, in request order. */

/** Options of {@link scoreOverHttp}. */
export interface ScoreOverHttpOptions {
  /** Items per request. @default 64 */
  batchSize?: number;
  /** Deadline of each request. @default 120000 */
  timeoutMs?: number;
}

const Slot = z.union([z.object({ score: z.number() }), z.object({ error: z.object({ code: z.string(), message: z.string() }) })]);
const Response = z.object({ results: z.array(Slot) });

/** The `score` of every item; an item the service answered with an error fails the whole run, naming the item. */
export async function scoreOverHttp(baseUrl: string, items: readonly StoryScoreItem[], options: ScoreOverHttpOptions = {}): Promise<number[]> {
  const batchSize = options.batchSize ?? 64;
  const scores: number[] = [];
  for (let start = 0; start < items.length; start += batchSize) {
    const chunk = items.slice(start, start + batchSize);
    const res = await fetch(`${baseUrl}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: chunk }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
    });
    const body: unknown = await res.json();
    if (!res.ok) throw new Error(`POST /v1/score answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
    const { results } = Response.parse(body);
    if (results.length !== chunk.length) throw new Error(`POST /v1/score returned ${results.length} results for ${chunk.length} items`);
    results.forEach((slot, i) => {
      if ('error' in slot) throw new Error(`item ${start + i} was not scored: ${slot.error.code}: ${slot.error.message}`);
      scores.push(slot.score);
    });
  }
  return scores;
}
