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
import {
  createRandomPolicy,
  type EmbeddedPolicy,
  type HostParams,
  type HostTensor,
  mergeAdapter,
  openWeightsStore,
  parseAdapterConfig,
  type PolicyWeights,
  policyFromWeights,
  publishAdapter,
  publishWeights,
  saveModelDir,
} from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeInferenceServer, type Failure, startFakeInferenceServer } from './support/fake-inference-server.ts';
import { connectTestClient } from './support/nats-client.ts';
import { type NatsServer, type ServiceProcess, startNatsServer, startService, waitForLine } from './support/processes.ts';

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

async function rollout(gen: ServiceProcess, extra: Record<string, unknown>): Promise<{ status: number; body: { results: Slot[]; detail?: string } }> {
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
  return { status: res.status, body: (await res.json()) as { results: Slot[]; detail?: string } };
}

/** The largest gap between each slot's sampled log-probs and `policy`'s teacher-forced ones. */
async function gap(slots: Slot[], policy: EmbeddedPolicy): Promise<number> {
  const lps = await policy.logprobs(slots.map((s) => ({ prompt: s.prompt_ids, response: s.response_ids })));
  return Math.max(...slots.flatMap((s, i) => s.response_logprobs.map((lp, t) => Math.abs(lp - (lps[i]?.[t] ?? Number.NaN)))));
}

/** The generation service in front of `fake`, syncing versions of bucket `bucket` into `syncDir`. */
function startGeneration(natsUrl: string, fake: FakeInferenceServer, bucket: string, kind: string, syncDir: string): Promise<ServiceProcess> {
  return startService('generation', {
    NATS_URL: natsUrl,
    GENERATION_BACKEND: 'openai',
    OPENAI_BASE_URL: fake.baseUrl,
    OPENAI_MODEL: MODEL,
    OPENAI_MAX_RETRIES: '1',
    OPENAI_RETRY_BASE_MS: '1',
    POLICY_OBJECT_STORE: bucket,
    POLICY_OBJECT_NAME: NAME,
    INFERENCE_SYNC: kind,
    INFERENCE_SYNC_DIR: syncDir,
  });
}

/** The version a loaded directory holds (config.json as saveModelDir writes it). */
const versionIn = async (dir: string) => (JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { rl_policy_version: string }).rl_policy_version;

const versionsOf = (out: { results: Slot[] }) => out.results.map((r) => r.model_version ?? r.error?.code);

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

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectTestClient(nats.url);
    os = await openWeightsStore(nc, `sync-${kind}`);
    syncDir = await mkdtemp(join(tmpdir(), `rl-sync-${kind}-`));
    fake = await startFakeInferenceServer(MODEL);
    await publish('v1', 1);
    gen = await startGeneration(nats.url, fake, `sync-${kind}`, kind, syncDir);
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
    const first = await rollout(gen, { model_version: 'v1' });
    expect(first.status).toBe(200);
    expect(versionsOf(first.body)).toEqual(['v1', 'v1', 'v1', 'v1']);
    const v1 = policies.get('v1') as EmbeddedPolicy;
    expect(await gap(first.body.results, v1)).toBeLessThan(SAME);

    // One lost answer is retried (OPENAI_MAX_RETRIES=1), as every upstream call.
    const loadsBefore = fake.calls.filter((c) => c.path === loadPath).length;
    fake.failNext({ path: loadPath, status: 503, body: { error: { message: 'busy', code: 503 } } });
    const v2 = await publish('v2', 2);
    const second = await rollout(gen, { model_version: 'v2' });
    expect(fake.calls.filter((c) => c.path === loadPath).length).toBe(loadsBefore + 2);
    expect(second.status).toBe(200);
    expect(versionsOf(second.body)).toEqual(['v2', 'v2', 'v2', 'v2']);
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
    await waitForLine(gen, /"version":"v1".*"msg":"superseded policy version released"/, 30_000);
    expect(await readdir(syncDir)).toEqual([dir.slice(syncDir.length + 1)]);
  });

  it('a failed sync fails rollouts, naming the server and endpoint, until a later version syncs', { timeout: 180_000 }, async () => {
    fake.failNext(broken);
    await publish('v3', 3);
    const waited = await rollout(gen, { model_version: 'v3' });
    expect(waited.status).toBe(503);
    expect(waited.body.detail).toContain('policy version v3 did not reach the inference server');
    expect(waited.body.detail).toContain(`${fake.baseUrl.replace(/\/v1$/, '')}${loadPath}`);
    expect(waited.body.detail).toContain('CUDA out of memory while loading');

    // Without a version asked for, the stale v2 still on the server is not sampled from either.
    const stale = await rollout(gen, {});
    expect(stale.status).toBe(200);
    expect(versionsOf(stale.body)).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable']);
    expect(stale.body.results[0]?.error?.message).toContain('policy version v3 did not reach the inference server');

    const v4 = await publish('v4', 4);
    const recovered = await rollout(gen, { model_version: 'v4' });
    expect(recovered.status).toBe(200);
    expect(versionsOf(recovered.body)).toEqual(['v4', 'v4', 'v4', 'v4']);
    expect(await gap(recovered.body.results, v4)).toBeLessThan(SAME);
  });
});

describe('INFERENCE_SYNC=vllm-lora', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let os: ObjectStore;
  let fake: FakeInferenceServer;
  let gen: ServiceProcess;
  let syncDir: string;
  let base: PolicyWeights;
  const policies: EmbeddedPolicy[] = [];
  const ADAPTER_CONFIG = JSON.stringify({ peft_type: 'LORA', task_type: 'CAUSAL_LM', r: 4, lora_alpha: 8, target_modules: ['q_proj', 'v_proj'], bias: 'none' });

  /** A LoRA adapter on q_proj and v_proj with seeded values (both A and B non-zero, so it changes the model). */
  function adapterTensors(seed: number): HostParams {
    let state = seed;
    const next = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648 - 0.5;
    };
    const tensors: HostParams = {};
    for (let l = 0; l < SHAPE.nLayers; l++) {
      for (const m of ['q_proj', 'v_proj']) {
        const [out, inDim] = (base.params[`model.layers.${l}.self_attn.${m}.weight`] as HostTensor).shape as [number, number];
        const prefix = `base_model.model.model.layers.${l}.self_attn.${m}`;
        tensors[`${prefix}.lora_A.weight`] = { shape: [4, inDim], data: Float32Array.from({ length: 4 * inDim }, next) };
        tensors[`${prefix}.lora_B.weight`] = { shape: [out, 4], data: Float32Array.from({ length: out * 4 }, next) };
      }
    }
    return tensors;
  }

  /** Publishes adapter `version`; resolves with the policy the adapter makes of the base (what the rollouts must sample from). */
  async function publish(version: string, seed: number): Promise<EmbeddedPolicy> {
    const tensors = adapterTensors(seed);
    await publishAdapter(os, NAME, { adapterConfig: ADAPTER_CONFIG, tensors }, version);
    const policy = await policyFromWeights(mergeAdapter(base, { settings: parseAdapterConfig(JSON.parse(ADAPTER_CONFIG)), tensors }));
    policies.push(policy);
    return policy;
  }

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectTestClient(nats.url);
    os = await openWeightsStore(nc, 'sync-lora');
    syncDir = await mkdtemp(join(tmpdir(), 'rl-sync-lora-'));
    const basePolicy = await createRandomPolicy({ config: SHAPE, tokenizer: { kind: 'byte' }, seed: 1, version: 'base' });
    policies.push(basePolicy);
    base = await basePolicy.exportWeights();
    await saveModelDir(`${syncDir}-base`, base);
    fake = await startFakeInferenceServer(MODEL, { baseDir: `${syncDir}-base` });
    gen = await startGeneration(nats.url, fake, 'sync-lora', 'vllm-lora', syncDir);
  }, 120_000);
  afterAll(async () => {
    await gen?.stop();
    await fake?.close();
    await nc?.close();
    await nats?.stop();
    for (const p of policies) p.dispose();
    if (syncDir !== undefined) {
      await rm(syncDir, { recursive: true, force: true });
      await rm(`${syncDir}-base`, { recursive: true, force: true });
    }
  });

  it('each adapter version is loaded under its own name, requested by rollouts, and unloaded when superseded', { timeout: 180_000 }, async () => {
    const a1 = await publish('a1', 101);
    const first = await rollout(gen, { model_version: 'a1' });
    expect(first.status).toBe(200);
    expect(versionsOf(first.body)).toEqual(['a1', 'a1', 'a1', 'a1']);
    expect(await gap(first.body.results, a1)).toBeLessThan(SAME);
    expect(await gap(first.body.results, policies[0] as EmbeddedPolicy)).toBeGreaterThan(100 * SAME); // not the base

    const a2 = await publish('a2', 202);
    const second = await rollout(gen, { model_version: 'a2' });
    expect(versionsOf(second.body)).toEqual(['a2', 'a2', 'a2', 'a2']);
    expect(await gap(second.body.results, a2)).toBeLessThan(SAME);
    expect(await gap(second.body.results, a1)).toBeGreaterThan(100 * SAME);
    const loads = fake.calls.filter((c) => c.path === '/v1/load_lora_adapter');
    expect(loads.map((c) => c.body.lora_name)).toEqual([`${MODEL}@a1#1`, `${MODEL}@a2#2`]);
    const dir = String(loads[1]?.body.lora_path);
    expect(dirname(dir)).toBe(syncDir);
    expect((await readdir(dir)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);

    await waitForLine(gen, /"version":"a1".*"msg":"superseded policy version released"/, 30_000);
    expect(fake.calls.filter((c) => c.path === '/v1/unload_lora_adapter').map((c) => c.body.lora_name)).toEqual([`${MODEL}@a1#1`]);
    expect(fake.adapterNames()).toEqual([`${MODEL}@a2#2`]);
    expect(await readdir(syncDir)).toEqual([dir.slice(syncDir.length + 1)]);
  });

  it('a version published again (a resumed job republishes its checkpoint) is loaded anew and served', { timeout: 180_000 }, async () => {
    const again = await publish('a2', 303);
    // The first a2 is released once the second serves in its place.
    await waitForLine(gen, /"version":"a2".*"msg":"superseded policy version released"/, 30_000);
    const out = await rollout(gen, { model_version: 'a2' });
    expect(out.status).toBe(200);
    expect(versionsOf(out.body)).toEqual(['a2', 'a2', 'a2', 'a2']);
    expect(await gap(out.body.results, again)).toBeLessThan(SAME);
    // Under a name of its own: the first a2's was unloaded when it was released.
    expect(fake.calls.filter((c) => c.path === '/v1/load_lora_adapter').map((c) => c.body.lora_name)).toEqual([
      `${MODEL}@a1#1`,
      `${MODEL}@a2#2`,
      `${MODEL}@a2#3`,
    ]);
    expect(fake.adapterNames()).toEqual([`${MODEL}@a2#3`]);
  });

  it('a load whose answer was lost is loaded again under its name, unloading what the first attempt loaded', { timeout: 180_000 }, async () => {
    fake.failNext({ path: '/v1/load_lora_adapter', status: 503, body: { error: { message: 'busy', code: 503 } }, afterEffect: true });
    const a3 = await publish('a3', 404);
    const out = await rollout(gen, { model_version: 'a3' });
    expect(out.status).toBe(200);
    expect(versionsOf(out.body)).toEqual(['a3', 'a3', 'a3', 'a3']);
    expect(await gap(out.body.results, a3)).toBeLessThan(SAME);
    // The retry was told the name is taken ("already been loaded"): the server serves the directory all the same.
    const name = `${MODEL}@a3#4`;
    const calls = fake.calls.filter((c) => c.body.lora_name === name).map((c) => c.path);
    expect(calls).toEqual(['/v1/load_lora_adapter', '/v1/load_lora_adapter', '/v1/unload_lora_adapter', '/v1/load_lora_adapter']);
  });

  it('full weights published to an adapter sync fail the rollout with what was expected', { timeout: 180_000 }, async () => {
    const full = await createRandomPolicy({ config: SHAPE, tokenizer: { kind: 'byte' }, seed: 9, version: 'f1' });
    policies.push(full);
    await publishWeights(os, NAME, full, 'f1');
    const out = await rollout(gen, { model_version: 'f1' });
    expect(out.status).toBe(503);
    expect(out.body.detail).toContain('policy version f1 did not reach the inference server');
    expect(out.body.detail).toContain('INFERENCE_SYNC=vllm-lora reads LoRA adapters');
  });
});
