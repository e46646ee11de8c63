// The checked-in OpenAPI documents as a client generator other than
// openapi-typescript sees them: @hey-api/openapi-ts (its fetch client) generates
// a client from each document into a temporary folder, and every operation of
// every service is called through it against a real process. Operations whose
// success needs heavy setup (a training job, a rollout) are called with a
// request that gets one of their documented 4xx answers. The documents also
// pass Redocly's recommended rules, as does a running service's
// `/openapi.json` when AUTH_TOKEN makes the bearer token required.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startNatsServer, startService, waitForLine, type NatsServer, type ServiceProcess } from './support/processes.ts';

const run = promisify(execFile);
const SERVICES = ['reward-rules', 'reward-sandbox', 'reward-story', 'reward-model', 'generation', 'trainer'] as const;
type Service = (typeof SERVICES)[number];
const TOKEN = 'client-s3cret';
/** Redocly without its usage telemetry and update check: nothing leaves the host. */
const REDOCLY_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** What a generated operation function answers (`throwOnError` false). */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}
type Operation = (options?: Record<string, unknown>) => Promise<Answer>;
interface GeneratedClient {
  sdk: Record<string, Operation>;
  setConfig(config: Record<string, unknown>): void;
}

interface Doc {
  servers: Array<{ url: string }>;
  security: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
}
const docOf = (name: string): Doc => parse(readFileSync(join(ROOT, 'openapi', `${name}.yaml`), 'utf8')) as Doc;
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, id: op.operationId, statuses: Object.keys(op.responses) })),
  );

/** Redocly's report on one document (its JSON format answers one object per file). */
async function redoclyLint(file: string): Promise<{ totals: { errors: number; warnings: number }; problems: unknown[] }> {
  const { stdout } = await run(join(ROOT, 'node_modules/.bin/redocly'), ['lint', '--extends=recommended', '--format=json', file], {
    cwd: ROOT,
    env: REDOCLY_ENV,
  }).catch((err: { stdout?: string }) => ({
    stdout: err.stdout ?? '',
  }));
  return JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
}

let nats: NatsServer;
const svc = {} as Record<Service, ServiceProcess>;
const clients = {} as Record<Service, GeneratedClient>;
let out: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'rl-hey-api-'));
  // One generator run for the five documents (absolute paths: a relative one reads as a registry shorthand).
  const generate = run(
    join(ROOT, 'node_modules/.bin/openapi-ts'),
    [
      '-i',
      ...SERVICES.map((s) => join(ROOT, 'openapi', `${s}.yaml`)),
      '-o',
      ...SERVICES.map((s) => join(out, s)),
      '-c',
      '@hey-api/client-fetch',
      '--no-log-file',
      '--silent',
    ],
    { cwd: ROOT },
  );
  nats = await startNatsServer();
  const env = { NATS_URL: nats.url };
  const work = join(out, 'trainer-work');
  [svc['reward-rules'], svc['reward-sandbox'], svc['reward-story'], svc['reward-model'], svc.generation, svc.trainer] = await Promise.all([
    startService('reward-rules', { ...env, SCORE_WORKERS: '1', AUTH_TOKEN: TOKEN }),
    startService('reward-sandbox', env),
    startService('reward-story', { ...env, STORY_INTRA_OP_THREADS: '1' }),
    startService('reward-model', env),
    startService('generation', { ...env, POLICY_SEED: '7' }),
    startService('trainer', { ...env, TRAINER_BASE_DIR: work }),
  ]);
  await generate;
  for (const s of SERVICES) {
    const sdk = (await import(pathToFileURL(join(out, s, 'sdk.gen.ts')).href)) as Record<string, Operation>;
    const { client } = (await import(pathToFileURL(join(out, s, 'client.gen.ts')).href)) as { client: { setConfig(c: Record<string, unknown>): void } };
    clients[s] = { sdk, setConfig: (c) => client.setConfig(c) };
  }
  await waitForLine(svc['reward-story'], /"msg":"model loaded"/, 60_000);
}, 180_000);
afterAll(async () => {
  await Promise.all(Object.values(svc).map((p) => p?.stop()));
  await nats?.stop();
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

describe('OpenAPI documents pass Redocly’s recommended rules', () => {
  it('every checked-in document: no error, no warning', async () => {
    const reports = await Promise.all(SERVICES.map(async (s) => [s, await redoclyLint(join(ROOT, 'openapi', `${s}.yaml`))] as const));
    for (const [s, report] of reports) {
      expect(report.problems, s).toEqual([]);
      expect(report.totals, s).toMatchObject({ errors: 0, warnings: 0 });
    }
  });

  it('a running service’s /openapi.json with AUTH_TOKEN set: the bearer token required, the serving host first', async () => {
    const live = (await (await fetch(`${svc['reward-rules'].baseUrl}/openapi.json`)).json()) as Doc;
    expect(live.security).toEqual([{ bearerAuth: [] }]);
    expect(live.servers.map((s) => s.url)).toEqual(['/', 'http://127.0.0.1:8101']);
    const file = join(out, 'live-reward-rules.json');
    writeFileSync(file, JSON.stringify(live));
    const report = await redoclyLint(file);
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    // The checked-in one states the token as optional (it depends on the deployment).
    expect(docOf('reward-rules').security).toEqual([{}, { bearerAuth: [] }]);
  });
});

/** Calls made through the generated clients: service → operationId → HTTP status. */
const called = new Map<Service, Map<string, number>>();

/** Calls `operationId` through the generated client of `service` and checks the status is one its document lists. */
async function call(service: Service, operationId: string, options: Record<string, unknown> = {}): Promise<Answer> {
  const fn = clients[service].sdk[operationId];
  if (fn === undefined) throw new Error(`the generated ${service} client has no ${operationId}`);
  const answer = await fn({ signal: AbortSignal.timeout(60_000), ...options });
  const op = operationsOf(docOf(service)).find((o) => o.id === operationId);
  expect(op?.statuses, `${service} ${operationId} answered ${answer.response.status}: ${JSON.stringify(answer.error)}`).toContain(
    String(answer.response.status),
  );
  if (!called.has(service)) called.set(service, new Map());
  called.get(service)!.set(operationId, answer.response.status);
  return answer;
}
const problemCode = (a: Answer) => (a.error as { error?: { code?: string } } | undefined)?.error?.code;

const CHAT = (q: string) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
const APPS_SPEC = JSON.stringify({ inputs: ['2 3\n'], outputs: ['5\n'] });
const APPS_CODE = '```python\na, b = map(int, input().split())\nprint(a + b)\n```';

describe('a client generated by @hey-api/openapi-ts calls every operation', () => {
  it('each generated client defaults to its document’s first server, the service’s local address', () => {
    for (const s of SERVICES) {
      const text = readFileSync(join(out, s, 'client.gen.ts'), 'utf8');
      expect(text).toContain(`baseUrl: '${docOf(s).servers[0]!.url}'`);
    }
  });

  it('reward-rules (bearer token from the client’s auth option)', async () => {
    const s = 'reward-rules';
    clients[s].setConfig({ baseUrl: svc[s].baseUrl });
    const denied = await call(s, 'listDataSources');
    expect(denied.response.status).toBe(401);
    expect(problemCode(denied)).toBe('unauthorized');
    clients[s].setConfig({ baseUrl: svc[s].baseUrl, auth: () => TOKEN });

    const score = await call(s, 'scoreItems', { body: { items: [{ data_source: 'openai/gsm8k', solution_str: '9 + 9 = 18. #### 18', ground_truth: '18' }] } });
    expect(score.data).toMatchObject({ results: [{ score: 1 }] });
    const sources = await call(s, 'listDataSources');
    expect((sources.data as { data_sources: Array<{ data_source: string }> }).data_sources.map((d) => d.data_source)).toContain('openai/gsm8k');
    const prompt = CHAT('Janet pays 9 + 9?');
    const openrlhf = { query: [`${prompt}9 + 9 = 18. #### 18<|im_end|>`], prompts: [prompt], labels: ['18'] };
    expect((await call(s, 'scoreOpenRlhfForDataSource', { path: { data_source: 'openai/gsm8k' }, body: openrlhf })).data).toMatchObject({ rewards: [1] });
    expect((await call(s, 'scoreOpenRlhf', { body: { ...openrlhf, labels: [{ data_source: 'openai/gsm8k', ground_truth: '18' }] } })).data).toMatchObject({
      rewards: [1],
    });
    const sample = { prompt: [{ role: 'user', content: 'Janet pays 9 + 9?' }], response: 'She pays 18. #### 18', label: '18' };
    expect((await call(s, 'scoreSlimeForDataSource', { path: { data_source: 'openai/gsm8k' }, body: sample })).data).toBe(1);
    const detail = await call(s, 'scoreSlime', { query: { detail: 'true' }, body: { ...sample, label: { data_source: 'openai/gsm8k', ground_truth: '18' } } });
    expect(detail.data).toMatchObject({ score: 1, error: null });
    const malformed = await call(s, 'scoreItems', { body: { items: 'not a list' } });
    expect(malformed.response.status).toBe(400);
    expect(problemCode(malformed)).toBe('validation_failed');
  });

  it('reward-sandbox', async () => {
    const s = 'reward-sandbox';
    clients[s].setConfig({ baseUrl: svc[s].baseUrl });
    const ran = await call(s, 'runCode', { body: { code: 'print(6 * 7)', language: 'python' } });
    expect(ran.data).toMatchObject({ status: 'Success', run_result: { stdout: '42\n' } });
    const unsupported = await call(s, 'runCode', { body: { code: 'x', language: 'cobol' } });
    expect(unsupported.response.status).toBe(400);
    expect((await call(s, 'scoreItems', { body: { items: [{ data_source: 'apps', solution_str: APPS_CODE, ground_truth: APPS_SPEC }] } })).data).toMatchObject({
      results: [{ score: 1 }],
    });
    expect(((await call(s, 'listLanguages')).data as { languages: Array<{ language: string }> }).languages.map((l) => l.language)).toContain('python');
    expect((await call(s, 'ping')).data).toBe('pong');
    const openrlhf = { query: [`p ${APPS_CODE}`], prompts: ['p '], labels: [APPS_SPEC] };
    expect((await call(s, 'scoreOpenRlhfForDataSource', { path: { data_source: 'apps' }, body: openrlhf })).data).toMatchObject({ rewards: [1] });
    expect((await call(s, 'scoreOpenRlhf', { body: { ...openrlhf, labels: [{ data_source: 'apps', ground_truth: APPS_SPEC }] } })).data).toMatchObject({
      rewards: [1],
    });
    const sample = { prompt: 'p', response: APPS_CODE, label: APPS_SPEC };
    expect((await call(s, 'scoreSlimeForDataSource', { path: { data_source: 'apps' }, body: sample })).data).toBe(1);
    expect(
      (await call(s, 'scoreSlime', { query: { detail: 'true' }, body: { ...sample, label: { data_source: 'apps', ground_truth: APPS_SPEC } } })).data,
    ).toMatchObject({ score: 1 });
  });

  it('reward-story', async () => {
    const s = 'reward-story';
    clients[s].setConfig({ baseUrl: svc[s].baseUrl });
    // Without a story context an item is an invalid_params error in its slot (the batch still answers 200).
    const scored = await call(s, 'scoreItems', {
      body: { items: [{ data_source: 'story', solution_str: '*Mara looks at the sky.* "Not tonight, the storm is coming."' }] },
    });
    const [noContext] = (scored.data as { results: unknown[] }).results;
    expect(noContext).toMatchObject({ error: { code: 'invalid_params' } });
    const openrlhf = { query: ['p reply'], prompts: ['p '], labels: ['x'] };
    expect((await call(s, 'scoreOpenRlhfForDataSource', { path: { data_source: 'story' }, body: openrlhf })).data).toMatchObject({
      rewards: [expect.any(Number)],
    });
    expect((await call(s, 'scoreOpenRlhf', { body: { ...openrlhf, labels: [{ data_source: 'story', ground_truth: 'x' }] } })).data).toMatchObject({
      rewards: [expect.any(Number)],
    });
    expect(
      typeof (await call(s, 'scoreSlimeForDataSource', { path: { data_source: 'story' }, body: { prompt: 'p', response: 'reply', label: 'x' } })).data,
    ).toBe('number');
    expect(
      (await call(s, 'scoreSlime', { query: { detail: 'true' }, body: { prompt: 'p', response: 'reply', label: null, metadata: { data_source: 'story' } } }))
        .data,
    ).toMatchObject({
      score: expect.any(Number),
    });
    expect((await call(s, 'scoreItems', { body: {} })).response.status).toBe(400);
  });

  it('reward-model', async () => {
    const s = 'reward-model';
    clients[s].setConfig({ baseUrl: svc[s].baseUrl });
    // Started with no reward model and no judge: it lists none, and every item is its own error naming what to set.
    expect((await call(s, 'listBackends')).data).toMatchObject({ backends: [] });
    const scored = await call(s, 'scoreItems', {
      body: { items: [{ data_source: 'helpfulness', solution_str: 'Paris.', ground_truth: 'Paris', extra_info: { prompt: 'Capital?' } }] },
    });
    const [item] = (scored.data as { results: Array<{ error?: { code: string; message: string } }> }).results;
    expect(item?.error?.message).toMatch(/REWARD_MODELS|REWARD_JUDGES_FILE/);
    const openrlhf = { query: ['q a'], prompts: ['q '], labels: [null] };
    for (const [id, extra] of [
      ['scoreOpenRlhf', {}],
      ['scoreOpenRlhfForDataSource', { path: { data_source: 'helpfulness' } }],
    ] as const) {
      const answer = await call(s, id, { body: openrlhf, ...extra });
      expect(answer.response.status, id).toBeLessThan(500);
    }
    for (const [id, extra] of [
      ['scoreSlime', { query: { detail: 'true' } }],
      ['scoreSlimeForDataSource', { path: { data_source: 'helpfulness' } }],
    ] as const) {
      const answer = await call(s, id, { body: { prompt: 'q', response: 'a', label: null, metadata: { data_source: 'helpfulness' } }, ...extra });
      expect(answer.response.status, id).toBeLessThan(500);
    }
    expect((await call(s, 'scoreItems', { body: {} })).response.status).toBe(400);
  });

  it('generation', async () => {
    const s = 'generation';
    clients[s].setConfig({ baseUrl: svc[s].baseUrl });
    const models = (await call(s, 'listModels')).data as { data: Array<{ id: string }> };
    const model = models.data[0]!.id;
    const tokens = ((await call(s, 'tokenize', { body: { model, prompt: 'hello' } })).data as { tokens: number[] }).tokens;
    expect(tokens.length).toBeGreaterThan(0);
    expect((await call(s, 'detokenize', { body: { model, tokens } })).data).toEqual({ prompt: 'hello' });
    expect((await call(s, 'createCompletion', { body: { model, prompt: 'hello', max_tokens: 2, seed: 1 } })).data).toMatchObject({
      object: 'text_completion',
      choices: [expect.any(Object)],
    });
    expect(
      (await call(s, 'createChatCompletion', { body: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, seed: 1 } })).data,
    ).toMatchObject({
      object: 'chat.completion',
      choices: [expect.any(Object)],
    });
    // A rollout batch needs verl samples and a policy's time: a malformed batch gets the documented 400.
    const rollout = await call(s, 'generateRollouts', { body: { samples: 'none' } });
    expect(rollout.response.status).toBe(400);
    expect(problemCode(rollout)).toBe('validation_failed');
  });

  it('trainer', async () => {
    const s = 'trainer';
    clients[s].setConfig({ baseUrl: svc[s].baseUrl });
    // A job needs the whole stack: an invalid config gets the documented 400 naming the bad keys.
    const created = await call(s, 'createJob', { body: { config: { trainer: { total_epochs: 'many' } } } });
    expect(created.response.status).toBe(400);
    expect((await call(s, 'listJobs')).data).toEqual([]);
    for (const id of ['getJob', 'getJobMetrics', 'cancelJob', 'renderJobPlots']) {
      const answer = await call(s, id, { path: { id: 'no-such-job' } });
      expect(answer.response.status).toBe(404);
      expect(problemCode(answer)).toBe('not_found');
    }
  });

  it('every operation of every document was called through its generated client', () => {
    for (const s of SERVICES) {
      const ids = operationsOf(docOf(s)).map((o) => o.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...(called.get(s)?.keys() ?? [])].sort()).toEqual([...ids].sort());
      // The generated SDK exposes exactly the documented operations, named by their operationId.
      expect(Object.keys(clients[s].sdk).sort()).toEqual([...ids].sort());
    }
  });
});
