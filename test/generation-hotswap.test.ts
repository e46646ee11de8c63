// Weight hot-swap: the trainer publishes versions to a JetStream Object Store
// bucket; the generation service loads each one while serving, new rollouts
// use it, and rollouts already running finish on the version they started with.
import type { NatsConnection } from '@nats-io/transport-node';
import type { ObjectStore } from '@nats-io/obj';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandomPolicy, openWeightsStore, publishWeights } from '@rl/policy';
import type { RolloutResponse } from '../services/generation/src/schemas/rollout.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, waitForLine, type NatsServer, type ServiceProcess } from './support/processes.ts';

const BUCKET = 'policy-test';
const SHAPE = { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxSeqLen: 1200 };

let nats: NatsServer;
let nc: NatsConnection;
let os: ObjectStore;
let gen: ServiceProcess;

async function publish(version: string, seed: number): Promise<void> {
  const policy = await createRandomPolicy({ config: SHAPE, tokenizer: { kind: 'byte' }, seed, version });
  try {
    await publishWeights(os, 'policy', policy, version);
  } finally {
    policy.dispose();
  }
}
const loaded = (version: string) => waitForLine(gen, new RegExp(`"version":"${version}".*"msg":"policy version loaded"`), 60_000);

async function rollout(body: unknown): Promise<RolloutResponse> {
  const res = await fetch(`${gen.baseUrl}/v1/rollouts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RolloutResponse;
}
const versions = (out: RolloutResponse) => [...new Set(out.results.map((r) => ('error' in r ? r.error.code : r.model_version)))];

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectTestClient(nats.url);
  os = await openWeightsStore(nc, BUCKET);
  await publish('v1', 1);
  gen = await startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'policy' });
  await loaded('v1');
});
afterAll(async () => {
  await gen?.stop();
  await nc?.close();
  await nats?.stop();
});

describe('policy hot-swap from the object store', () => {
  it('serves a new version to new rollouts while running ones finish on the old one', { timeout: 180_000 }, async () => {
    expect(versions(await rollout({ samples: [{ prompt: [{ role: 'user', content: 'hi' }] }], limits: { max_response_tokens: 4 } }))).toEqual(['v1']);

    // A long rollout holds v1 while v2 arrives.
    let settled = false;
    // Greedy decoding of this untrained v1 never emits the end-of-turn token, so every row runs to its 1000-token budget.
    const long = rollout({
      samples: [{ prompt: [{ role: 'user', content: 'tell me a long story' }] }],
      n: 8,
      sampling: { temperature: 0 },
      limits: { max_response_tokens: 1000 },
    }).finally(() => {
      settled = true;
    });
    await publish('v2', 2);
    await loaded('v2');
    expect(settled).toBe(false);
    const after = await rollout({ samples: [{ prompt: [{ role: 'user', content: 'hi' }] }], limits: { max_response_tokens: 4 } });
    expect(versions(after)).toEqual(['v2']);
    const models = (await (await fetch(`${gen.baseUrl}/v1/models`)).json()) as { data: Array<{ root: string }> };
    expect(models.data[0]?.root).toBe('v2');

    const held = await long;
    expect(versions(held)).toEqual(['v1']);
    expect(held.usage.completion_tokens).toBe(8 * 1000);
  });
});
