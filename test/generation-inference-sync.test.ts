// Rollouts from an inference server on the weights just trained: the generation
// service's OpenAI backend (token mode) in front of a fake SGLang / vLLM that
// serves completions from exactly the directory each sync call hands it. Each
// published version reaches the server before the next rollout, the rollout's
// log-probs are the new weights' own, and a failed sync fails rollouts instead
// of sampling from the stale policy.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { createRandomPolicy, type EmbeddedPolicy, openWeightsStore, publishWeights } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeInferenceServer, type Failure, startFakeInferenceServer } from './support/fake-inference-server.ts';
import { connectTestClient } from './support/nats-client.ts';
import { type NatsServer, type ServiceProcess, startNatsServer, startService } from './support/processes.ts';

const MODEL = 'policy-under-test';
const NAME = 'actor';
const SHAPE = { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxSeqLen: 256 };
/** Sampling with the KV cache against a teacher-forced forward pass of the same weights. */
const SAME = 1e-3;

interface Slot {
  group: number;
  model_version?: string;
  prompt_ids: number[];
  response_ids: number[];
  response_logprobs: number[];
  error?: { code: string; message: string };
}

const cases: Array<{ kind: 'sglang' | 'vllm'; loadPath: string; dirOf: (body: Record<string, unknown>) => string; broken: Failure }> = [
  {
    kind: 'sglang',
    loadPath: '/update_weights_from_disk',
    dirOf: (b) => String(b.model_path),
    broken: { path: '/update_weights_from_disk', status: 400, body: { success: false, message: 'CUDA out of memory while loading', num_paused_requests: 0 } },
  },
  {
    kind: 'vllm',
    loadPath: '/collective_rpc',
    dirOf: (b) => String((b.kwargs as Record<string, unknown>).weights_path),
    broken: { path: '/collective_rpc', status: 500, body: { error: { message: 'CUDA out of memory while loading', code: 500 } }, times: 2 },
  },
];

describe.each(cases)('INFERENCE_SYNC=$kind', ({ kind, loadPath, dirOf, broken }) => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let os: ObjectStore;
  let fake: FakeInferenceServer;
  let gen: ServiceProcess;
  let syncDir: string;
  const policies = new Map<string, EmbeddedPolicy>();

  async function publish(version: string, seed: number): Promise<EmbeddedPolicy> {
    const policy = await createRandomPolicy({ config: SHAPE, tokenizer: { kind: 'byte' }, seed, version });
    policies.set(version, policy);
    await publishWeights(os, NAME, policy, version);
    return policy;
  }

  async function rollout(extra: Record<string, unknown>): Promise<{ status: number; body: { results: Slot[]; detail?: string } }> {
    const res = await fetch(`${gen.baseUrl}/v1/rollouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        samples: [{ prompt: [{ role: 'user', content: 'count to five' }] }, { prompt: [{ role: 'user', content: 'hi' }] }],
        n: 2,
        sampling: { temperature: 1, seed: 11 },
        limits: { max_response_tokens: 12 },
        model_version_timeout_ms: 60_000,
        ...extra,
      }),
      signal: AbortSignal.timeout(120_000),
    });
    return { status: res.status, body: await res.json() };
  }

  /** The largest gap between each slot's sampled log-probs and `policy`'s teacher-forced ones. */
  async function gap(slots: Slot[], policy: EmbeddedPolicy): Promise<number> {
    const lps = await policy.logprobs(slots.map((s) => ({ prompt: s.prompt_ids, response: s.response_ids })));
    return Math.max(...slots.flatMap((s, i) => s.response_logprobs.map((lp, t) => Math.abs(lp - (lps[i]?.[t] ?? Number.NaN)))));
  }

  /** The version a loaded directory holds (config.json as saveModelDir writes it). */
  const versionIn = async (dir: string) => (JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { rl_policy_version: string }).rl_policy_version;

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectTestClient(nats.url);
    os = await openWeightsStore(nc, `sync-${kind}`);
    syncDir = await mkdtemp(join(tmpdir(), `rl-sync-${kind}-`));
    fake = await startFakeInferenceServer(MODEL);
    await publish('v1', 1);
    gen = await startService('generation', {
      NATS_URL: nats.url,
      GENERATION_BACKEND: 'openai',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_MODEL: MODEL,
      OPENAI_MAX_RETRIES: '1',
      OPENAI_RETRY_BASE_MS: '1',
      POLICY_OBJECT_STORE: `sync-${kind}`,
      POLICY_OBJECT_NAME: NAME,
      INFERENCE_SYNC: kind,
      INFERENCE_SYNC_DIR: syncDir,
    });
  }, 120_000);
  afterAll(async () => {
    await gen?.stop();
    await fake?.close();
    await nc?.close();
    await nats?.stop();
    for (const p of policies.values()) p.dispose();
    if (syncDir !== undefined) await rm(syncDir, { recursive: true, force: true });
  });

  it('each published version reaches the server before the next rollout, which samples from it', { timeout: 180_000 }, async () => {
    const first = await rollout({ model_version: 'v1' });
    expect(first.status).toBe(200);
    expect(first.body.results.map((r) => r.model_version)).toEqual(['v1', 'v1', 'v1', 'v1']);
    const v1 = policies.get('v1') as EmbeddedPolicy;
    expect(await gap(first.body.results, v1)).toBeLessThan(SAME);

    const v2 = await publish('v2', 2);
    const second = await rollout({ model_version: 'v2' });
    expect(second.status).toBe(200);
    expect(second.body.results.map((r) => r.model_version)).toEqual(['v2', 'v2', 'v2', 'v2']);
    // The server was handed v2's directory, in INFERENCE_SYNC_DIR, and sampled from those weights, not v1's.
    const load = fake.calls.filter((c) => c.path === loadPath).at(-1);
    expect(load).toBeDefined();
    const dir = dirOf(load?.body ?? {});
    expect(dirname(dir)).toBe(syncDir);
    expect(fake.loaded.at(-1)).toBe(dir);
    expect(await versionIn(dir)).toBe('v2');
    expect(await gap(second.body.results, v2)).toBeLessThan(SAME);
    expect(await gap(second.body.results, v1)).toBeGreaterThan(100 * SAME);
    if (kind === 'vllm') expect(fake.calls.at(-1)?.path).toBe('/reset_prefix_cache');
    // v1's directory is gone once the server moved on.
    expect(await readdir(syncDir)).toEqual([dir.slice(syncDir.length + 1)]);
  });

  it('a failed sync fails rollouts, naming the server and endpoint, until a later version syncs', { timeout: 180_000 }, async () => {
    fake.failNext(broken);
    await publish('v3', 3);
    const waited = await rollout({ model_version: 'v3' });
    expect(waited.status).toBe(503);
    expect(waited.body.detail).toContain('policy version v3 did not reach the inference server');
    expect(waited.body.detail).toContain(`${fake.baseUrl.replace(/\/v1$/, '')}${loadPath}`);
    expect(waited.body.detail).toContain('CUDA out of memory while loading');

    // Without a version asked for, the stale v2 still on the server is not sampled from either.
    const stale = await rollout({});
    expect(stale.status).toBe(200);
    expect(stale.body.results.map((r) => r.error?.code)).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable']);
    expect(stale.body.results[0]?.error?.message).toContain('policy version v3 did not reach the inference server');

    const v4 = await publish('v4', 4);
    const recovered = await rollout({ model_version: 'v4' });
    expect(recovered.status).toBe(200);
    expect(recovered.body.results.map((r) => r.model_version)).toEqual(['v4', 'v4', 'v4', 'v4']);
    expect(await gap(recovered.body.results, v4)).toBeLessThan(SAME);
  });
});
