// reward-model end to end with real parts: a real nats-server and the service
// process serving a tiny reward model the test builds, on the embedded jax-js
// engine, on the PyTorch engine child and (exported to model.onnx) on
// onnxruntime at once. Scores over HTTP, NATS, the OpenRLHF edge and the slime
// edge (its prompt read as the conversation) agree with each other and with the
// numpy reference forward pass;
// routing, unknown names, an item too long for the model and a service with
// nothing configured answer per-item errors, never a failed batch. A judge of
// the shipped judges file, pointed at a fake judge server, scores in the same
// batch as the model.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ByteTokenizer, encodeSafetensors, type HostParams } from '@rl/policy';
import { requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelScoreResponse } from '../services/reward-model/src/schemas.ts';
import { exportOnnx } from '../services/reward-model/src/models/testing/onnx-export.ts';
import { writeTinyRewardModel } from '../services/reward-model/src/models/testing/tiny-reward-model.ts';
import { startFakeJudgeServer, type FakeJudgeServer } from './support/fake-judge-server.ts';
import { connectTestClient } from './support/nats-client.ts';
import { ROOT, startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const REFERENCE = join(ROOT, 'shared/policy/src/model/reference/hf_forward.py');
const SUBJECT = 'reward.model.score';
const tmp = mkdtempSync(join(tmpdir(), 'rl-reward-model-svc-'));
const DIR = join(tmp, 'rm');
let params: HostParams;
let nats: NatsServer;
let svc: ServiceProcess;
let bare: ServiceProcess;
let nc: NatsConnection;
let judge: FakeJudgeServer;

beforeAll(async () => {
  ({ params } = await writeTinyRewardModel(DIR, { head: 'token', maxSeqLen: 128 }));
  exportOnnx(DIR);
  nats = await startNatsServer();
  judge = await startFakeJudgeServer({ respond: (req) => ({ text: req.prompt.includes('Name a colour.') ? 'Blue is fine. Score: 7' : 'No score here' }) });
  const judges = join(tmp, 'judges.yaml');
  const shipped = readFileSync(join(ROOT, 'services/reward-model/judges/quality.yaml'), 'utf8');
  writeFileSync(judges, shipped.replace(/base_url: \S+/, `base_url: ${judge.baseUrl}`));
  [svc, bare] = await Promise.all([
    startService('reward-model', {
      NATS_URL: nats.url,
      REWARD_MODELS: `rm=${DIR},rm-torch=torch:${DIR},rm-onnx=onnx:${DIR}`,
      REWARD_MODEL_TORCH_DEVICE: 'cpu',
      REWARD_MODEL_ONNX_THREADS: '1',
      REWARD_JUDGES_FILE: judges,
      REWARD_ROUTES: 'gsm8k=rm,chat=quality',
    }),
    startService('reward-model', { NATS_URL: nats.url, NATS_ENABLED: 'false' }),
  ]);
  nc = await connectTestClient(nats.url);
}, 120_000);
afterAll(async () => {
  await nc?.close();
  await Promise.all([svc?.stop(), bare?.stop()]);
  await judge?.close();
  await nats?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const chat = (question: string) => ({ messages: [{ role: 'user', content: question }] });
const ITEMS = [
  { data_source: 'gsm8k', solution_str: '9+9 = 18. #### 18', ground_truth: '18', extra_info: chat('What is 9+9?') },
  { data_source: 'other', solution_str: 'Blue.', ground_truth: null, extra_info: { prompt: 'Name a colour.' }, params: { model: 'rm' } },
  { data_source: 'other', solution_str: 'Blue.', ground_truth: null, extra_info: { prompt: 'Name a colour.' }, params: { model: 'rm-torch' } },
  { data_source: 'other', solution_str: 'x', ground_truth: null },
  { data_source: 'gsm8k', solution_str: 'y'.repeat(200), ground_truth: '1', extra_info: chat('Long?') },
  { data_source: 'gsm8k', solution_str: 'z', ground_truth: '1', params: { model: 'nope' } },
  { data_source: 'gsm8k', solution_str: 'z', ground_truth: '1', params: { judge: 'rm' } },
  { data_source: 'gsm8k', solution_str: 'z', ground_truth: '1', extra_info: { messages: [{ role: 'robot', content: 'hi' }] } },
  { data_source: 'chat', solution_str: 'Blue.', ground_truth: null, extra_info: { prompt: 'Name a colour.' } },
  { data_source: 'chat', solution_str: 'Green.', ground_truth: null, extra_info: { prompt: 'Another question' } },
];

const post = async (base: string, path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: (await res.json()) as unknown };
};

/** The reference's value at the last token of the conversation rendered with the model's ChatML template. */
function referenceScore(messages: Array<{ role: 'user'; content: string }>, response: string): number {
  const ids = new ByteTokenizer().applyChatTemplate([...messages, { role: 'assistant', content: response }]);
  const f32 = join(tmp, 'reference.safetensors');
  const request = join(tmp, 'request.json');
  writeFileSync(f32, encodeSafetensors(params));
  writeFileSync(request, JSON.stringify({ config: JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8')), sequences: [ids] }));
  const out = JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE, f32, request], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 })) as {
    values: number[][];
  };
  return out.values[0]?.at(-1) as number;
}

describe('reward-model over HTTP and NATS (real nats-server, real process, a tiny reward model on three engines)', () => {
  it('scores in order with per-item errors; HTTP and NATS agree; the scores are the reference’s', async () => {
    const http = await post(svc.baseUrl, '/v1/score', { items: ITEMS });
    expect(http.status).toBe(200);
    const { results } = ModelScoreResponse.parse(http.body);
    const requestsAfterHttp = judge.requests.length;
    const viaNats = await requestJson(nc, SUBJECT, { items: ITEMS }, { timeoutMs: 60_000, response: ModelScoreResponse });
    // The judge's answer to the same rendered prompt comes from its cache the second time (at most the unparseable one is asked again).
    expect(viaNats.results[8]).toMatchObject({ extra: { cached: true } });
    expect(viaNats.results.map((r, i) => (i === 8 ? { ...r, extra: { ...r.extra, cached: false } } : r))).toEqual(results);
    expect(judge.requests.length - requestsAfterHttp).toBeLessThanOrEqual(1);

    expect(results[0]).toMatchObject({ extra: { model: 'rm', engine: 'jax' } });
    const s0 = (results[0] as { score: number }).score;
    expect(Math.abs(s0 - referenceScore([{ role: 'user', content: 'What is 9+9?' }], '9+9 = 18. #### 18'))).toBeLessThan(1e-4);
    // The same item on the PyTorch engine child.
    expect(results[2]).toMatchObject({ extra: { model: 'rm-torch', engine: 'torch' } });
    const [jax, torch] = [(results[1] as { score: number }).score, (results[2] as { score: number }).score];
    expect(Math.abs(jax - torch)).toBeLessThan(1e-4);
    expect(Math.abs(jax - referenceScore([{ role: 'user', content: 'Name a colour.' }], 'Blue.'))).toBeLessThan(1e-4);

    expect(results[3]).toEqual({ error: { code: 'unknown_data_source', message: expect.stringContaining('data_source "other": no backend is mapped to it') } });
    expect(results[4]).toEqual({
      error: { code: 'payload_too_large', message: expect.stringMatching(/reward model rm: .* render to 226 tokens; this model reads at most 127$/) },
      extra: { tokens: 226, max_tokens: 127 },
    });
    expect(results[5]).toEqual({
      error: { code: 'invalid_params', message: 'params.model: no reward model named "nope" (configured: rm, rm-torch, rm-onnx)' },
    });
    expect(results[6]).toEqual({ error: { code: 'invalid_params', message: 'params.judge: no judge named "rm" (configured: quality)' } });
    expect(results[7]).toMatchObject({ error: { code: 'invalid_params', message: expect.stringContaining('extra_info.messages[0][role]') } });
    // The judge: "Score: 7" on 1-10 is 6/9; an answer with no score is the item's error with the judge's text, never 0.
    expect((results[8] as { score: number }).score).toBeCloseTo(6 / 9, 6);
    expect(results[9]).toMatchObject({ error: { code: 'judge_unparseable' }, extra: expect.objectContaining({}) });
    expect(JSON.stringify(results[9])).toContain('No score here');

    // The judge's metrics on /metrics: its requests, the cache hit of the NATS round, the unparseable answers.
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    const judged = (name: string) => Number(new RegExp(`^${name}\\{[^}]*judge="quality"[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    expect(judged('judge_requests_total')).toBe(judge.requests.length);
    expect(judged('judge_cache_hits_total')).toBeGreaterThanOrEqual(1);
    expect(judged('judge_parse_failures_total')).toBeGreaterThanOrEqual(1);
  });

  it('serves the OpenRLHF edge over the same core (a reward per query, errors flagged)', async () => {
    const res = await post(svc.baseUrl, '/openrlhf/gsm8k', {
      query: ['P9+9 = 18. #### 18', 'Px'],
      prompts: ['P', 'P'],
      labels: ['18', { data_source: 'gsm8k', ground_truth: '1', params: { model: 'nope' } }],
    });
    expect(res.status).toBe(200);
    const body = res.body as { rewards: number[]; extra_logs: { reward_error: number[] } };
    expect(body.rewards[0]).toBeCloseTo(referenceScore([], '9+9 = 18. #### 18'), 4);
    expect(body.extra_logs.reward_error).toEqual([0, 1]);
  });

  it('serves the slime edge: the sample’s prompt (chat or text) is the conversation the reward model reads, here on the ONNX engine', async () => {
    const sample = (prompt: unknown, response: string) => ({ prompt, response, label: '18', metadata: { params: { model: 'rm-onnx' } } });
    const chatPrompt = await post(svc.baseUrl, '/slime/gsm8k?detail=true', sample([{ role: 'user', content: 'What is 9+9?' }], '9+9 = 18. #### 18<|im_end|>'));
    expect(chatPrompt.body).toMatchObject({ error: null, extra: { model: 'rm-onnx', engine: 'onnx' } });
    expect((chatPrompt.body as { score: number }).score).toBeCloseTo(referenceScore([{ role: 'user', content: 'What is 9+9?' }], '9+9 = 18. #### 18'), 4);
    const textPrompt = await post(svc.baseUrl, '/slime/gsm8k', sample('Name a colour.', 'Blue.'));
    expect(textPrompt.body as number).toBeCloseTo(referenceScore([{ role: 'user', content: 'Name a colour.' }], 'Blue.'), 4);
    // Without the prompt the model reads the response alone: another score.
    const none = await post(svc.baseUrl, '/slime/gsm8k', { response: 'Blue.', label: '18', metadata: { params: { model: 'rm-onnx' } } });
    expect(Math.abs((none.body as number) - (textPrompt.body as number))).toBeGreaterThan(1e-3);
  });

  it('reports its backends, and is ready once every engine is up', async () => {
    expect((await (await fetch(`${svc.baseUrl}/v1/backends`)).json()) as unknown).toEqual({
      backends: [
        { name: 'quality', kind: 'judge', ready: true, data_sources: ['chat'] },
        { name: 'rm', kind: 'reward_model', ready: true, data_sources: ['gsm8k'] },
        { name: 'rm-torch', kind: 'reward_model', ready: true, data_sources: [] },
        { name: 'rm-onnx', kind: 'reward_model', ready: true, data_sources: [] },
      ],
    });
    expect(await (await fetch(`${svc.baseUrl}/readyz`)).json()).toEqual({
      status: 'ready',
      checks: { nats: true, 'judge:quality': true, 'reward_model:rm': true, 'reward_model:rm-torch': true, 'reward_model:rm-onnx': true },
    });
  });

  it('runs with nothing configured: ready, and every item is an error saying what is missing', async () => {
    expect((await fetch(`${bare.baseUrl}/readyz`)).status).toBe(200);
    const res = await post(bare.baseUrl, '/v1/score', { items: ITEMS.slice(0, 2) });
    expect(res.status).toBe(200);
    for (const r of (res.body as ModelScoreResponse).results) {
      expect(r).toEqual({ error: { code: 'unknown_data_source', message: expect.stringContaining('set REWARD_MODELS or REWARD_JUDGES_FILE') } });
    }
  });

  it('refuses a malformed body naming the field (400), over HTTP and NATS', async () => {
    const res = await post(svc.baseUrl, '/v1/score', { items: [{ data_source: 'gsm8k', ground_truth: '1' }] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('solution_str');
    const err = await requestJson(nc, SUBJECT, { items: [] }, { timeoutMs: 30_000, response: ModelScoreResponse }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/items/);
  });
});
