// The tool agent and the gsm8k interaction end to end: the generation service
// (scripted backend, so replies are known) scores through the real reward-rules
// service over a real nats-server whose small max_payload forces chunking.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolloutResponse, type Trajectory, type TrajectoryError } from '../services/generation/src/schemas/rollout.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const SCRIPT = {
  rules: [
    { contains: 'Janet', replies: ['Let me check. <tool_call>{"name": "calc_gsm8k_reward", "arguments": {"answer": "18"}}</tool_call>', 'She makes #### 18'] },
    { contains: 'robe', replies: ['It takes #### 4', 'Sorry, it takes #### 3'] },
    { contains: 'sandbox', replies: ['<tool_call>{"name": "code_interpreter", "arguments": {"code": "print(6 * 7)"}}</tool_call>', 'It printed 42'] },
    { contains: 'broken', replies: ['<tool_call>{"name": "calc_gsm8k_reward", "arguments": </tool_call>', 'giving up'] },
    { replies: ['ok'] },
  ],
};
const SYSTEM = { role: 'system', content: 'You are a math expert. Use the `calc_gsm8k_reward` tool before answering.' };

let dir: string;
let nats: NatsServer;
let rules: ServiceProcess;
let gen: ServiceProcess;
let sandbox: ServiceProcess | undefined;
let nc: NatsConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rl-gen-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify(SCRIPT));
  nats = await startNatsServer({ maxPayload: 64 * 1024 });
  [rules, gen] = await Promise.all([
    startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' }),
    startService('generation', { NATS_URL: nats.url, GENERATION_BACKEND: 'scripted', GENERATION_SCRIPT: join(dir, 'script.json') }),
  ]);
  nc = await connectTestClient(nats.url);
});
afterAll(async () => {
  await nc?.close();
  await Promise.all([rules?.stop(), gen?.stop(), sandbox?.stop()]);
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const viaNats = (body: unknown) => requestJson(nc, 'rollout.generate', body, { timeoutMs: 30_000, response: RolloutResponse });
const ok = (r: Trajectory | TrajectoryError | undefined): Trajectory => {
  if (r === undefined || 'error' in r) throw new Error(`slot failed: ${JSON.stringify(r)}`);
  return r;
};

describe('generation tool agent over NATS (scripted backend, real reward-rules)', () => {
  it('calls calc_gsm8k_reward, scored by reward.rules.score, then answers', async () => {
    const sample = {
      data_source: 'openai/gsm8k',
      agent_name: 'tool_agent',
      prompt: [SYSTEM, { role: 'user', content: 'Janet’s ducks lay 16 eggs per day...' }],
      extra_info: { tools_kwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '18' } } } },
    };
    const t = ok((await viaNats({ samples: [sample], n: 2 })).results[1]);
    expect(t.messages?.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me check. ',
        tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'calc_gsm8k_reward', arguments: { answer: '18' } } }],
      },
      { role: 'tool', content: "Current parsed answer='18' reward=1.0", tool_call_id: 'call_1_0' },
      { role: 'assistant', content: 'She makes #### 18' },
    ]);
    expect(t).toMatchObject({ group: 0, rollout_n: 1, tool_rewards: [0], num_turns: 4, num_tool_calls: 1, num_tool_errors: 0, stop_reason: 'stop' });
    expect(t.response_mask.filter((m) => m === 0).length).toBeGreaterThan(0);
    expect(t.response_mask).toHaveLength(t.response_ids.length);
  });

  it('runs the gsm8k interaction until the answer is correct (strict scoring by reward-rules)', async () => {
    const sample = {
      agent_name: 'tool_agent',
      prompt: [{ role: 'user', content: 'A robe takes 2 bolts of blue fiber and half that much white fiber...' }],
      interaction_kwargs: { name: 'gsm8k', ground_truth: '3' },
    };
    const t = ok((await viaNats({ samples: [sample] })).results[0]);
    expect(t.messages?.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'It takes #### 4'],
      ['user', 'Your response is incorrect! You need to reflect on your answer and try again.'],
      ['assistant', 'Sorry, it takes #### 3'],
      ['user', 'Your response is correct!'],
    ]);
    expect(t).toMatchObject({ turn_scores: [0, 1], stop_reason: 'interaction_done', num_turns: 5 });
  });

  it('answers a malformed tool call with an error message, not a failure', async () => {
    const t = ok((await viaNats({ samples: [{ agent_name: 'tool_agent', prompt: [{ role: 'user', content: 'broken' }] }] })).results[0]);
    expect(t.messages?.[2]?.content).toMatch(/^Error when executing tool: tool call is not valid JSON/);
    expect(t).toMatchObject({ num_tool_errors: 1, stop_reason: 'stop' });
  });

  it('gives code_interpreter `no stdout here` while no sandbox serves sandbox.run_code (verl’s API-error answer)', async () => {
    const t = ok((await viaNats({ samples: [{ agent_name: 'tool_agent', prompt: [{ role: 'user', content: 'sandbox' }] }] })).results[0]);
    expect(t.messages?.[2]).toEqual({ role: 'tool', content: 'no stdout here', tool_call_id: 'call_1_0' });
    expect(t.tool_calls).toEqual([{ turn: 1, name: 'code_interpreter', arguments: { code: 'print(6 * 7)' }, error: 'failed', reward: null }]);
  });

  it('runs code_interpreter through the real sandbox service over sandbox.run_code', async () => {
    sandbox = await startService('reward-sandbox', { NATS_URL: nats.url });
    const t = ok((await viaNats({ samples: [{ agent_name: 'tool_agent', prompt: [{ role: 'user', content: 'sandbox' }] }] })).results[0]);
    expect(t.messages?.[2]).toEqual({ role: 'tool', content: '42\n', tool_call_id: 'call_1_0' });
    expect(t).toMatchObject({ num_tool_errors: 0, tool_rewards: [], stop_reason: 'stop' });
  });

  it('chunks a rollout larger than max_payload both ways and keeps the order', async () => {
    const samples = Array.from({ length: 60 }, (_, i) => ({ prompt: [{ role: 'user', content: `${String(i).padStart(3, '0')} ${'x'.repeat(2000)}` }] }));
    const body = { samples, n: 2 };
    expect(JSON.stringify(body).length).toBeGreaterThan(nc.info?.max_payload ?? 0);
    const out = await viaNats(body);
    expect(out.results).toHaveLength(120);
    out.results.forEach((r, k) => {
      const t = ok(r);
      expect([t.group, t.rollout_n]).toEqual([Math.floor(k / 2), k % 2]);
      expect(t.messages?.[0]?.content.slice(0, 3)).toBe(String(t.group).padStart(3, '0'));
    });
  });

  it('replies a 400-coded error naming the field for a bad request', async () => {
    const err = await viaNats({
      samples: [{ prompt: [{ role: 'user', content: 'x' }], interaction_kwargs: { name: 'chess' }, agent_name: 'tool_agent' }],
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('samples[0].interaction_kwargs.name') });
  });
});
