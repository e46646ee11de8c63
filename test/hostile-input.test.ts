// The hostile-input contract: every service, started as a real process on a
// real nats-server, gets the same hostile variants of a valid body on every
// body-taking route and NATS subject (prototype keys in every mapping,
// prototype names as every string, 10,000-deep nesting, huge and non-finite
// numbers, huge strings, lone surrogates, invalid UTF-8, type confusion, broken
// JSON), hostile path segments, query strings and headers. Each answer is a
// success or a 4xx problem naming what is wrong, never a 5xx; after each one the
// service answers a canary request exactly as before and `/healthz` is 200.
// Object.prototype pollution shows from outside: prom-client's label check and
// zod's strict-object check both walk inherited keys, so a polluted process
// fails every request (the trainer did, before overrides refused `__proto__`),
// and an answer or `/metrics` would carry the planted key.
import type { NatsConnection } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLIES, STORY } from '../services/reward-story/src/core/testing/story-fixture.ts';
import {
  HOSTILE_HEADERS,
  HOSTILE_QUERY,
  HOSTILE_SEGMENTS,
  PROBE_KEY,
  hostileBodies,
  hostileOverrides,
  type Json,
  type Vector,
} from './support/hostile-vectors.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, waitForLine, type NatsServer, type ServiceProcess } from './support/processes.ts';

const SERVICES = ['reward-rules', 'reward-sandbox', 'reward-story', 'reward-model', 'generation', 'trainer'] as const;
type Service = (typeof SERVICES)[number];
interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: Json;
}

const GSM8K: Json = {
  items: [
    { data_source: 'openai/gsm8k', solution_str: 'She pays 18. #### 18', ground_truth: '18', extra_info: { split: 'test' }, params: { method: 'strict' } },
  ],
};
const OPENRLHF: Json = { query: ['q 9 + 9 = 18. #### 18'], prompts: ['q '], labels: ['18'] };
const SLIME: Json = {
  prompt: [{ role: 'user', content: '9 + 9?' }],
  response: '#### 18',
  label: { data_source: 'openai/gsm8k', ground_truth: '18', params: { method: 'strict' } },
};
const APPS: Json = {
  items: [
    {
      data_source: 'apps',
      solution_str: '```python\nprint(sum(map(int, input().split())))\n```',
      ground_truth: JSON.stringify({ inputs: ['1 2\n'], outputs: ['3\n'] }),
    },
  ],
};
const RUN_CODE: Json = { language: 'python', code: 'print(6 * 7)', stdin: '', run_timeout: 5, files: { 'in.txt': 'aGk=' }, fetch_files: ['in.txt'] };
const STORY_SCORE: Json = {
  items: [{ data_source: 'story', solution_str: REPLIES.good, context: STORY as unknown as Json, params: { weights: { relevance: 1 } } }],
};
// The reward-model service runs here with nothing configured: every item is answered with its own error.
const MODEL_SCORE: Json = {
  items: [{ data_source: 'helpfulness', solution_str: 'Paris.', ground_truth: 'Paris', extra_info: { prompt: 'Capital of France?' }, params: { model: 'rm' } }],
};
const ROLLOUT: Json = {
  samples: [
    { prompt: [{ role: 'user', content: 'Add 2 and 3.' }], data_source: 'openai/gsm8k', reward_model: { ground_truth: '5' }, extra_info: { index: 1 } },
  ],
  n: 1,
  sampling: { temperature: 1, seed: 3 },
  limits: { max_response_tokens: 4 },
};
const SUBMIT: Json = {
  config: { data: { train_files: 'missing.parquet', train_batch_size: 4 }, trainer: { total_training_steps: 1 } },
  overrides: ['trainer.experiment_name=x'],
};

/** Body-taking routes of each service, with a valid body the vectors rewrite. */
const ROUTES: Record<Service, Call[]> = {
  'reward-rules': [
    { method: 'POST', path: '/v1/score', body: GSM8K },
    { method: 'POST', path: '/openrlhf/openai/gsm8k', body: OPENRLHF },
    { method: 'POST', path: '/slime', body: SLIME },
  ],
  'reward-sandbox': [
    { method: 'POST', path: '/run_code', body: RUN_CODE },
    { method: 'POST', path: '/v1/score', body: APPS },
  ],
  'reward-story': [
    { method: 'POST', path: '/v1/score', body: STORY_SCORE },
    { method: 'POST', path: '/slime/story', body: { prompt: 'hi', response: REPLIES.good, label: { context: STORY as unknown as Json } } },
  ],
  'reward-model': [
    { method: 'POST', path: '/v1/score', body: MODEL_SCORE },
    { method: 'POST', path: '/openrlhf/helpfulness', body: { query: ['q a'], prompts: ['q '], labels: [null] } },
    { method: 'POST', path: '/slime', body: { prompt: 'q', response: 'a', label: { data_source: 'helpfulness' } } },
  ],
  generation: [
    { method: 'POST', path: '/v1/rollouts', body: ROLLOUT },
    { method: 'POST', path: '/v1/completions', body: { model: 'rl-policy', prompt: 'Once upon', max_tokens: 3, seed: 1, logit_bias: { '65': 1 } } },
    { method: 'POST', path: '/v1/chat/completions', body: { model: 'rl-policy', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, seed: 1 } },
    { method: 'POST', path: '/tokenize', body: { model: 'rl-policy', prompt: 'hello' } },
    { method: 'POST', path: '/detokenize', body: { model: 'rl-policy', tokens: [104, 105] } },
  ],
  trainer: [{ method: 'POST', path: '/v1/jobs', body: SUBMIT }],
};

/** Routes with a path parameter (`{}` marks it) and read-only routes, for hostile segments, queries and headers. */
const PARAM_ROUTES: Record<Service, Call[]> = {
  'reward-rules': [
    { method: 'POST', path: '/openrlhf/{}', body: OPENRLHF },
    { method: 'POST', path: '/slime/{}', body: SLIME },
    { method: 'GET', path: '/v1/data-sources' },
  ],
  'reward-sandbox': [
    { method: 'POST', path: '/slime/{}', body: { prompt: 'p', response: 'r', label: 'x' } },
    { method: 'GET', path: '/v1/languages' },
  ],
  'reward-story': [{ method: 'POST', path: '/openrlhf/{}', body: { query: ['x'], prompts: [''], labels: [null] } }],
  'reward-model': [
    { method: 'POST', path: '/openrlhf/{}', body: { query: ['x'], prompts: [''], labels: [null] } },
    { method: 'GET', path: '/v1/backends' },
  ],
  generation: [{ method: 'GET', path: '/v1/models' }],
  trainer: [
    { method: 'GET', path: '/v1/jobs/{}' },
    { method: 'GET', path: '/v1/jobs/{}/metrics' },
    { method: 'DELETE', path: '/v1/jobs/{}' },
    { method: 'POST', path: '/v1/jobs/{}/plots' },
    { method: 'GET', path: '/v1/jobs' },
  ],
};

/** NATS request subjects, each with its service and a valid body. */
const SUBJECTS: Array<{ service: Service; subject: string; body: Json }> = [
  { service: 'reward-rules', subject: 'reward.rules.score', body: GSM8K },
  { service: 'reward-sandbox', subject: 'reward.sandbox.score', body: APPS },
  { service: 'reward-sandbox', subject: 'sandbox.run_code', body: RUN_CODE },
  { service: 'reward-story', subject: 'reward.story.score', body: STORY_SCORE },
  { service: 'reward-model', subject: 'reward.model.score', body: MODEL_SCORE },
  { service: 'generation', subject: 'rollout.generate', body: ROLLOUT },
];

/** A request each service answers deterministically; after every vector it must answer it exactly as before. */
const CANARY: Record<Service, Call> = {
  'reward-rules': { method: 'POST', path: '/v1/score', body: GSM8K },
  'reward-sandbox': { method: 'POST', path: '/run_code', body: { language: 'swift', code: 'x' } },
  'reward-story': { method: 'POST', path: '/v1/score', body: { items: [{ data_source: 'story', solution_str: 'x', context: { user_input: 42 } }] } },
  'reward-model': { method: 'POST', path: '/v1/score', body: MODEL_SCORE },
  generation: { method: 'POST', path: '/tokenize', body: { model: 'rl-policy', prompt: 'hello' } },
  trainer: { method: 'POST', path: '/v1/jobs', body: { config: { data: { train_batch_size: 'x' } } } },
};

const HTTP_STRING_BYTES = 256 * 1024;
// Under nats-server's max_payload with every string of a body this long.
const NATS_STRING_BYTES = 32 * 1024;

let nats: NatsServer;
let nc: NatsConnection;
let work: string;
const svc = {} as Record<Service, ServiceProcess>;
const baseline = {} as Record<Service, string>;

interface Answer {
  status: number;
  text: string;
}

async function send(
  service: Service,
  call: Call,
  opts: { body?: string | Uint8Array; query?: string; headers?: Array<[string, string]> } = {},
): Promise<Answer> {
  const body = opts.body ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  const res = await fetch(`${svc[service].baseUrl}${call.path}${opts.query === undefined ? '' : `?${opts.query}`}`, {
    method: call.method,
    headers: [['content-type', 'application/json'], ...(opts.headers ?? [])],
    ...(body !== undefined && { body }),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, text: await res.text() };
}

const canary = async (service: Service) => {
  const a = await send(service, CANARY[service]);
  return `${a.status} ${a.text}`;
};

/** A success, or a 4xx problem whose message says what is wrong (for a planted prototype key: names it). */
function expectHandled(a: Answer, what: string, vector?: Vector): void {
  expect(a.status, `${what}: ${a.text.slice(0, 500)}`).toBeLessThan(500);
  if (a.status < 400) return;
  const problem = JSON.parse(a.text) as { detail?: string; error?: { code?: string } };
  expect(problem.error?.code, what).toMatch(/^[a-z_]+$/);
  expect(problem.detail ?? '', what).not.toBe('');
  if (vector?.pollutes === true && a.status === 400) expect(problem.detail, what).toMatch(/__proto__|constructor|prototype/);
}

/** The service is whole: alive, and its canary answered exactly as before the attack. */
async function expectHealthy(service: Service, after: string): Promise<void> {
  const health = await fetch(`${svc[service].baseUrl}/healthz`);
  expect(health.status, `${service} /healthz after ${after}`).toBe(200);
  expect(await canary(service), `${service} canary after ${after}`).toBe(baseline[service]);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-hostile-'));
  nats = await startNatsServer();
  const env = { NATS_URL: nats.url };
  [svc['reward-rules'], svc['reward-sandbox'], svc['reward-story'], svc['reward-model'], svc.generation, svc.trainer] = await Promise.all([
    startService('reward-rules', { ...env, SCORE_WORKERS: '1' }),
    startService('reward-sandbox', env),
    startService('reward-story', { ...env, STORY_INTRA_OP_THREADS: '1' }),
    startService('reward-model', env),
    startService('generation', { ...env, POLICY_SEED: '7' }),
    startService('trainer', { ...env, TRAINER_BASE_DIR: work }),
  ]);
  await waitForLine(svc['reward-story'], /"msg":"model loaded"/, 90_000);
  nc = await connectTestClient(nats.url);
  for (const s of SERVICES) baseline[s] = await canary(s);
}, 180_000);

afterAll(async () => {
  await nc?.close();
  await Promise.all(Object.values(svc).map((p) => p?.stop()));
  await nats?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe.each(SERVICES)('%s under hostile input', (service) => {
  it('baseline: the valid bodies and the canary succeed or fail as designed', async () => {
    expect(baseline[service]).toMatch(/^[24]\d\d /);
    for (const call of ROUTES[service]) expectHandled(await send(service, call), `${call.method} ${call.path} (valid)`);
  }, 120_000);

  it.each(ROUTES[service].map((c) => [`${c.method} ${c.path}`, c] as const))(
    'HTTP %s: every hostile body',
    async (label, call) => {
      for (const v of hostileBodies(call.body ?? null, HTTP_STRING_BYTES)) {
        expectHandled(await send(service, call, { body: v.body }), `${label} with ${v.name}`, v);
        await expectHealthy(service, `${label} with ${v.name}`);
      }
    },
    300_000,
  );

  it('hostile path segments, query strings and headers', async () => {
    for (const call of [...PARAM_ROUTES[service], ...ROUTES[service]]) {
      const segments = call.path.includes('{}') ? HOSTILE_SEGMENTS : ['-'];
      for (const seg of segments) {
        const at = { ...call, path: call.path.replace('{}', seg) };
        const label = `${at.method} ${at.path}`;
        expectHandled(await send(service, at), label);
        expectHandled(await send(service, at, { query: HOSTILE_QUERY, headers: HOSTILE_HEADERS }), `${label} with hostile query and headers`);
      }
      await expectHealthy(service, `${call.method} ${call.path} with hostile segments, query and headers`);
    }
  }, 300_000);

  it.each(SUBJECTS.filter((s) => s.service === service).map((s) => [s.subject, s] as const))(
    'NATS %s: every hostile payload',
    async (subject, s) => {
      for (const v of hostileBodies(s.body, NATS_STRING_BYTES)) {
        const what = `${subject} with ${v.name}`;
        const reply = await nc.request(subject, v.body, { timeout: 120_000 });
        const code = reply.headers?.code ?? 0;
        expect(code, `${what}: ${reply.headers?.description}`).toBeLessThan(500);
        if (code >= 400) {
          const { error } = reply.json<{ error: { code: string; message: string } }>();
          expect(error.message, what).not.toBe('');
          if (v.pollutes === true && code === 400) expect(error.message, what).toMatch(/__proto__|constructor|prototype/);
        }
        await expectHealthy(service, what);
      }
    },
    300_000,
  );

  it('afterwards: /metrics serves and carries no planted key', async () => {
    const res = await fetch(`${svc[service].baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(PROBE_KEY);
  });
});

describe('trainer overrides under hostile input', () => {
  it('HTTP POST /v1/jobs: every hostile override is a 400 naming it, and the trainer stays whole', async () => {
    for (const v of hostileOverrides()) {
      const what = `POST /v1/jobs with ${v.name}`;
      const a = await send('trainer', { method: 'POST', path: '/v1/jobs', body: { config: {}, overrides: v.overrides } });
      // No override above makes a valid job: each is refused, and the pollution attempts by their key.
      expect(a.status, `${what}: ${a.text.slice(0, 500)}`).toBe(400);
      expectHandled(a, what, { name: v.name, body: '', pollutes: v.pollutes ?? false });
      await expectHealthy('trainer', what);
    }
  }, 300_000);
});
