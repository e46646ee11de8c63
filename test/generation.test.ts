// The generation service with the embedded (untrained) policy: verl's GSM8K
// tool-agent rows through /v1/rollouts, the official `openai` client against
// its OpenAI-compatible endpoints, and a second instance whose `openai` backend
// talks to the first one over HTTP. Over NATS, a caller that asks for progress
// gets each trajectory as it finishes, ahead of the reply.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readParquetRows } from '@rl/datasets';
import { requestJson } from '@rl/service-kit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutResponse, Trajectory, TrajectoryError } from '../services/generation/src/schemas/rollout.ts';
import { z } from 'zod';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const FIXTURE = new URL('./fixtures/verl/verl_gsm8k_test.parquet', import.meta.url).pathname;
/** Byte tokenizer: 256 bytes + 5 specials. */
const VOCAB = 261;

let nats: NatsServer;
let embedded: ServiceProcess;
let proxy: ServiceProcess;

/** verl's GSM8K multi-turn tool config (examples/sglang_multiturn/config/tool_config/gsm8k_tool_config.yaml): the one tool its rows use. */
const GSM8K_TOOL_CONFIG = `tools:
  - class_name: "verl.tools.gsm8k_tool.Gsm8kTool"
    config:
      type: native
    tool_schema:
      type: "function"
      function:
        name: "calc_gsm8k_reward"
        description: "A tool for calculating the reward of gsm8k. (1.0 if parsed answer is correct, 0.0 if parsed answer is incorrect or not correctly parsed)"
        parameters:
          type: "object"
          properties:
            answer:
              type: "string"
              description: "The model's answer to the GSM8K math problem, must be a digits"
          required: ["answer"]
`;
let configDir: string;

beforeAll(async () => {
  nats = await startNatsServer();
  // Both instances template the same tools, so their trajectories can be compared token by token.
  configDir = await mkdtemp(join(tmpdir(), 'generation-it-'));
  const TOOL_CONFIG_PATH = join(configDir, 'gsm8k_tool_config.yaml');
  await writeFile(TOOL_CONFIG_PATH, GSM8K_TOOL_CONFIG);
  embedded = await startService('generation', { NATS_URL: nats.url, POLICY_SEED: '7', TOOL_CONFIG_PATH });
  proxy = await startService('generation', {
    NATS_URL: nats.url,
    TOOL_CONFIG_PATH,
    GENERATION_BACKEND: 'openai',
    OPENAI_BASE_URL: `${embedded.baseUrl}/v1`,
    OPENAI_MODEL: 'rl-policy',
    OPENAI_TIMEOUT_MS: '60000',
  });
});
afterAll(async () => {
  await Promise.all([embedded?.stop(), proxy?.stop()]);
  await nats?.stop();
  if (configDir !== undefined) await rm(configDir, { recursive: true, force: true });
});

async function rollouts(base: string, body: unknown): Promise<RolloutResponse> {
  const res = await fetch(`${base}/v1/rollouts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(240_000),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RolloutResponse;
}
const ok = (r: Trajectory | TrajectoryError | undefined): Trajectory => {
  if (r === undefined || 'error' in r) throw new Error(`slot failed: ${JSON.stringify(r)}`);
  return r;
};

/** Every structural promise a trainer relies on. */
function expectWellFormed(t: Trajectory, maxResponse: number): void {
  const n = t.response_ids.length;
  expect(n).toBeLessThanOrEqual(maxResponse);
  expect(t.response_mask).toHaveLength(n);
  expect(t.response_logprobs).toHaveLength(n);
  for (const id of [...t.prompt_ids, ...t.response_ids]) expect(id >= 0 && id < VOCAB).toBe(true);
  t.response_mask.forEach((m, i) => {
    expect(m === 0 || m === 1).toBe(true);
    const lp = t.response_logprobs[i] ?? Number.NaN;
    if (m === 0) expect(lp).toBe(0);
    else expect(lp <= 0 && Number.isFinite(lp)).toBe(true);
  });
  expect(t.num_turns).toBeGreaterThanOrEqual(2);
  expect(t.token_level).toBe(true);
}

describe('the official openai client against /v1', () => {
  const client = () => new OpenAI({ baseURL: `${embedded.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });

  it('lists the model and completes a chat, plain and streaming, with equal text for equal seeds', async () => {
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(['rl-policy']);
    const request = { model: 'rl-policy', messages: [{ role: 'user' as const, content: 'Say hi' }], max_tokens: 24, seed: 5, temperature: 1 };
    const plain = await client().chat.completions.create(request);
    const choice = plain.choices[0];
    expect(choice?.message.role).toBe('assistant');
    expect(['stop', 'length']).toContain(choice?.finish_reason);
    expect(plain.usage?.completion_tokens).toBeLessThanOrEqual(24);

    const stream = await client().chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(choice?.message.content);
    expect(finish).toBe(choice?.finish_reason);
    expect(usage?.completion_tokens).toBe(plain.usage?.completion_tokens);
  });

  it('completes text prompts with log-probs', async () => {
    const c = await client().completions.create({ model: 'rl-policy', prompt: 'Once upon', max_tokens: 6, logprobs: 1, seed: 3 });
    const lp = c.choices[0]?.logprobs;
    expect(lp?.token_logprobs).toHaveLength(c.usage?.completion_tokens ?? -1);
    expect(lp?.token_logprobs?.every((x) => x <= 0)).toBe(true);
  });

  it('reports a wrong model as a 404 the client understands', async () => {
    await expect(client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });
  });
});

describe('our openai backend against another running instance', () => {
  it('produces the same token-level trajectories as the embedded instance itself, tool agent included', { timeout: 120_000 }, async () => {
    const samples = [
      { prompt: [{ role: 'user', content: 'What is 2 + 3?' }] },
      {
        agent_name: 'tool_agent',
        prompt: [
          { role: 'system', content: 'Use tools.' },
          { role: 'user', content: 'Compute 7 * 6.' },
        ],
      },
    ];
    const body = { samples, n: 2, sampling: { seed: 99, temperature: 1 }, limits: { max_response_tokens: 24 } };
    const [direct, viaProxy] = [await rollouts(embedded.baseUrl, body), await rollouts(proxy.baseUrl, body)];
    expect(viaProxy.model).toBe('rl-policy');
    expect(viaProxy.usage.errors).toBe(0);
    viaProxy.results.forEach((r, k) => {
      const mine = ok(r);
      const theirs = ok(direct.results[k]);
      expectWellFormed(mine, 24);
      // Versions and generated group ids differ by construction. Log-probs may differ in the
      // last float bits (the two instances batch the rows differently); everything else must not.
      const { model_version: _a, uid: _ua, response_logprobs: la, ...a } = mine;
      const { model_version: _b, uid: _ub, response_logprobs: lb, ...b } = theirs;
      expect(a).toEqual(b);
      la.forEach((v, i) => expect(v).toBeCloseTo(lb[i]!, 4));
    });
  });
});

// Last: it is the heaviest, and a policy failure here must not take the other tests down with it.
describe('generation with the embedded policy', () => {
  it('rolls out 32 GSM8K tool-agent rows of verl’s parquet, every trajectory well formed', { timeout: 300_000 }, async () => {
    const { rows } = await readParquetRows(FIXTURE, { rowStart: 0, rowEnd: 32 });
    const samples = JSON.parse(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as unknown[];
    const maxResponse = 32;
    const out = await rollouts(embedded.baseUrl, { samples, n: 2, sampling: { temperature: 1, seed: 11 }, limits: { max_response_tokens: maxResponse } });
    expect(out.results).toHaveLength(64);
    expect(out.results.filter((r) => 'error' in r)).toEqual([]);
    out.results.forEach((r, k) => {
      const t = ok(r);
      expect([t.group, t.rollout_n, t.agent_name, t.data_source]).toEqual([Math.floor(k / 2), k % 2, 'tool_agent', 'openai/gsm8k']);
      expectWellFormed(t, maxResponse);
      expect(t.messages?.slice(0, 2)).toEqual((samples[t.group] as { prompt: unknown[] }).prompt);
    });
    expect(new Set(out.results.map((r) => r.uid)).size).toBe(32);
  });
});

describe('rollouts over NATS, trajectory by trajectory', () => {
  it('sends every trajectory as progress ({index, slot}) before the reply, each equal to the reply’s slot at that index', { timeout: 120_000 }, async () => {
    const nc = await connectTestClient(nats.url);
    try {
      const progress: Array<{ index: number; slot: unknown }> = [];
      const body = {
        samples: [0, 1, 2].map((i) => ({ prompt: [{ role: 'user', content: `q${i}` }] })),
        n: 2,
        sampling: { seed: 3 },
        limits: { max_response_tokens: 8 },
      };
      const reply = await requestJson(nc, 'rollout.generate', body, {
        timeoutMs: 100_000,
        response: z.object({ results: z.array(z.unknown()) }).loose(),
        onProgress: (p) => progress.push(p as { index: number; slot: unknown }),
      });
      expect(reply.results).toHaveLength(6);
      expect(progress.map((p) => p.index).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      for (const p of progress) expect(p.slot).toEqual(reply.results[p.index]);
    } finally {
      await nc.close();
    }
  });
});
