import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ScoreResponse, requestJson } from '@rl/service-kit';
import { DEFAULT_STORY_OPTIONS, parseStoryRecord, storySamples } from '@rl/datasets';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, paths } from '../openapi/types/reward-story.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, waitForLine, type NatsServer, type ServiceProcess } from './support/processes.ts';
import { REPLIES, STORY } from '../services/reward-story/src/core/testing/story-fixture.ts';

type Extra = components['schemas']['StoryExtra'];
const SUBJECT = 'reward.story.score';
let nats: NatsServer;
let story: ServiceProcess;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  // The service's own default model (models/default), as `make up` starts it.
  story = await startService('reward-story', { NATS_URL: nats.url, STORY_INTRA_OP_THREADS: '1' });
  nc = await connectTestClient(nats.url);
});
afterAll(async () => {
  await nc?.close();
  await story?.stop();
  await nats?.stop();
});

// The same hand-written turn the unit tests use; typed here by the generated client schema.
const CONTEXT: components['schemas']['StoryContext'] = STORY;
const GOOD = REPLIES.good;
const item = (solution_str: string, extra: Record<string, unknown> = {}) => ({ data_source: 'story', solution_str, context: CONTEXT, ...extra });
const BATCH = {
  items: [
    item(GOOD),
    item('*She smiles.* "Bananas are sweet and full of potassium; buy them at the market."'),
    item('*He nods.* The dragon burned the village mill last night.'),
    item(GOOD.replace(/\*/g, '')),
    item(GOOD, { params: { weights: { relevance: -1 } } }),
    { data_source: 'story', solution_str: GOOD },
    item(GOOD, { signals: { logprobs_with_context: [-0.5, -1], logprobs_without_context: [-1, -1.5], entropies: [0.5, 1.5] } }),
  ],
};

const postScore = (body: unknown) =>
  fetch(`${story.baseUrl}/v1/score`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
const natsScore = (body: unknown) => requestJson(nc, SUBJECT, body, { timeoutMs: 30_000, response: ScoreResponse });
const extraOf = (r: ScoreResponse['results'][number] | undefined): Extra => {
  if (r === undefined || !('score' in r)) throw new Error(`expected a score, got ${JSON.stringify(r)}`);
  return r.extra as Extra;
};

describe('reward-story over HTTP and NATS (real nats-server, real process, shipped model)', () => {
  it('gives identical results over HTTP and NATS, in order, with per-item errors', async () => {
    const http = (await (await postScore(BATCH)).json()) as ScoreResponse;
    const bus = await natsScore(BATCH);
    expect(bus).toEqual(http);
    const [good, offTopic, copy, malformed, badWeights, noContext, withSignals] = http.results;
    for (const worse of [offTopic, copy, malformed]) expect(extraOf(good).total).toBeGreaterThan(extraOf(worse).total);
    expect(extraOf(copy).non_repetition).toBe(0);
    expect(extraOf(malformed).format).toBe(0);
    expect(badWeights).toMatchObject({ error: { code: 'invalid_params', message: expect.stringMatching(/^params\.weights\.relevance: /) } });
    expect(noContext).toMatchObject({ error: { code: 'invalid_params', message: expect.stringMatching(/^context: /) } });
    expect(extraOf(withSignals)).toMatchObject({ info_gain_nats: 0.5, entropy_nats: 1, model: 'default' });
  });

  it('is ready once the model is loaded, and serves a client generated from the checked-in OpenAPI document', async () => {
    await waitForLine(story, /"msg":"model loaded"/, 30_000);
    const ready = await fetch(`${story.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { nats: true, model: true } });

    const client = createClient<paths>({ baseUrl: story.baseUrl });
    const { data, response } = await client.POST('/v1/score', { body: { items: [item(GOOD)] } });
    expect(response.status).toBe(200);
    const first = data?.results[0];
    expect(first !== undefined && 'score' in first ? first.extra.format : undefined).toBe(1);
  });

  it('scores samples of the story converter with their columns copied into extra_info, as a trainer sends them', async () => {
    const raw = {
      system: CONTEXT.story_content,
      conversations: [
        { from: 'user', value: 'I walk up to the castle gate.' },
        { from: 'assistant', value: 'The knight at the gate raises his lantern and asks your name.' },
        { from: 'user', value: 'I ask the knight how to fight the dragon.' },
        { from: 'assistant', value: 'The knight says the dragon fears fire.' },
      ],
    };
    const samples = storySamples(parseStoryRecord(raw, 'record 1'), 'c1', 0, DEFAULT_STORY_OPTIONS);
    const items = samples.map(({ data_source, reward_model, extra_info, prompt: _p, ability: _a, ...columns }) => ({
      data_source,
      solution_str: GOOD,
      ground_truth: reward_model.ground_truth,
      extra_info: { ...extra_info, ...columns },
    }));
    const { results } = await natsScore({ items });
    expect(results).toHaveLength(2);
    // The converter's output_format is a prose instruction: nothing to check, so format is skipped.
    for (const r of results) expect(extraOf(r)).toMatchObject({ format: null, beyond_reference: expect.any(Number) });
    expect(extraOf(results[0]).non_repetition).toBeNull();
    expect(extraOf(results[1]).non_repetition).toBe(1);
  });

  it('rejects a malformed request with a 400 naming the field, on both edges, and keeps serving', async () => {
    const bad = { items: [item(GOOD, { context: { ...CONTEXT, user_input: 42 } })] };
    const res = await postScore(bad);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(((await res.json()) as { detail: string }).detail).toContain('items[0].context.user_input');

    const err = await natsScore(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
    expect((err as AppError).message).toContain('items[0].context.user_input');

    const missing = await postScore({ items: [{ data_source: 'story', context: CONTEXT }] });
    expect(((await missing.json()) as { detail: string }).detail).toContain('items[0].solution_str');

    expect((await natsScore({ items: [item(GOOD)] })).results[0]).toMatchObject({ extra: { format: 1 } });
  });
});
