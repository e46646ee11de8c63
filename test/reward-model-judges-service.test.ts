// The reward-model service with LLM judges end to end: a real nats-server, the
// service process reading a judges file (REWARD_JUDGES_FILE), and a fake judge
// server over real HTTP. Items choose a judge by params.judge or by their data
// source; scores and per-item errors agree on HTTP and NATS; a malformed judges
// file stops the service naming the key.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelScoreResponse } from '../services/reward-model/src/schemas.ts';
import { type FakeJudgeServer, startFakeJudgeServer } from './support/fake-judge-server.ts';
import { connectTestClient } from './support/nats-client.ts';
import { launch, type NatsServer, ROOT, type ServiceProcess, startNatsServer, startService } from './support/processes.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rl-reward-model-judges-'));
let judgeServer: FakeJudgeServer;
let nats: NatsServer;
let svc: ServiceProcess;
let nc: NatsConnection;

const judgesFile = (baseUrl: string, pattern = 'Score:\\s*(\\d+)') => `
judges:
  quality:
    base_url: ${baseUrl}
    model: judge-model
    api_key_env: TEST_JUDGE_KEY
    prompt: "Question: {{ question }}\\nAnswer: {{ response }}"
    parser: {type: pattern, pattern: '${pattern}'}
    score_range: [1, 10]
  correct:
    base_url: ${baseUrl}
    model: judge-model
    prompt: "Reference: {{ reference }}\\nAnswer: {{ response }}\\nyes or no?"
    parser: {type: yes_no}
`;

beforeAll(async () => {
  judgeServer = await startFakeJudgeServer({
    respond: (req) => {
      if (req.prompt.startsWith('Reference:')) return { text: req.prompt.includes('Answer: 4\n') ? 'yes' : 'no' };
      if (req.prompt.includes('Answer: mumble')) return { text: 'Hard to say.' };
      return { text: 'Fine. Score: 7' };
    },
  });
  const file = join(tmp, 'judges.yaml');
  writeFileSync(file, judgesFile(judgeServer.baseUrl));
  nats = await startNatsServer();
  svc = await startService('reward-model', { NATS_URL: nats.url, REWARD_JUDGES_FILE: file, TEST_JUDGE_KEY: 'sk-e2e', REWARD_ROUTES: 'open_qa=quality' });
  nc = await connectTestClient(nats.url);
}, 120_000);
afterAll(async () => {
  await nc?.close();
  await svc?.stop();
  await nats?.stop();
  await judgeServer?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const chat = (q: string) => ({ messages: [{ role: 'user', content: q }] });
const ITEMS = [
  { data_source: 'open_qa', solution_str: 'Paris is the capital.', ground_truth: null, extra_info: chat('Capital of France?') },
  { data_source: 'math', solution_str: '4', ground_truth: '4', extra_info: chat('2+2?'), params: { judge: 'correct' } },
  { data_source: 'math', solution_str: '5', ground_truth: '4', extra_info: chat('2+2?'), params: { judge: 'correct' } },
  { data_source: 'open_qa', solution_str: 'mumble', ground_truth: null, extra_info: chat('Why?') },
  { data_source: 'open_qa', solution_str: 'x', ground_truth: null, params: { judge: 'nope' } },
];

function summary(results: ModelScoreResponse['results']): unknown[] {
  return results.map((r) => ('score' in r ? r.score : r.error.code));
}

describe('reward-model with judges', () => {
  it('scores each item with its judge over HTTP; failures stay in their slots', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: ITEMS }),
    });
    expect(res.status).toBe(200);
    const { results } = ModelScoreResponse.parse(await res.json());
    expect(summary(results)).toEqual([2 / 3, 1, 0, 'judge_unparseable', 'invalid_params']);
    expect(results[3]?.extra).toMatchObject({ judge: 'quality', judge_text: 'Hard to say.' });
    expect(judgeServer.requests[0]?.authorization).toBe('Bearer sk-e2e');
    expect(judgeServer.requests[0]?.prompt).toBe('Question: Capital of France?\nAnswer: Paris is the capital.');
  });

  it('gives the same results on NATS, the repeated requests answered from the cache', async () => {
    const before = judgeServer.requests.length;
    const { results } = await requestJson(nc, 'reward.model.score', { items: ITEMS }, { timeoutMs: 30_000, response: ModelScoreResponse });
    expect(summary(results)).toEqual([2 / 3, 1, 0, 'judge_unparseable', 'invalid_params']);
    expect(results[0]?.extra).toMatchObject({ cached: true });
    // Only the unparseable answer is asked again.
    expect(judgeServer.requests.length - before).toBe(1);
  });

  it('is ready with its judges listed', async () => {
    const res = await fetch(`${svc.baseUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('judge:quality');
  });

  it('refuses to start on a malformed judges file, naming the key', async () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, judgesFile('http://127.0.0.1:9/v1', 'Score: \\d+'));
    const r = launch(process.execPath, ['src/main.ts'], {
      cwd: join(ROOT, 'services/reward-model'),
      env: { PORT: '0', HOST: '127.0.0.1', NATS_ENABLED: 'false', REWARD_JUDGES_FILE: bad, TEST_JUDGE_KEY: 'k' },
    });
    // 'close': the exit and every line of its output read.
    const [code] = (await once(r.proc, 'close')) as [number | null];
    expect(code).not.toBe(0);
    expect(r.output.join('\n')).toContain('judges.quality.parser.pattern: needs a capture group');
  });
});
