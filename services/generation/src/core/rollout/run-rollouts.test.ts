import { BoundedQueue } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { RolloutRequest, type Trajectory, type TrajectoryError } from '../../schemas/rollout.ts';
import { fakePort, manualDeadlines, modelIds, scriptedBackend } from '../agent/testing/agent.ts';
import type { Script } from '../backends/scripted-policy.ts';
import { createGsm8kInteraction } from '../interactions/gsm8k.ts';
import { createGsm8kRewardTool, GSM8K_REWARD_SCHEMA } from '../tools/gsm8k-reward.ts';
import { runRollouts, type RolloutDeps } from './run-rollouts.ts';

function depsWith(script: Script, batches: number[] = []): RolloutDeps {
  const port = fakePort();
  let id = 0;
  return {
    backend: scriptedBackend(script, (n) => batches.push(n)),
    env: {
      tools: new Map([['calc_gsm8k_reward', createGsm8kRewardTool({ schema: GSM8K_REWARD_SCHEMA, timeoutMs: 50, port })]]),
      deadline: manualDeadlines().deadline,
    },
    interactions: new Map([['gsm8k', createGsm8kInteraction({ name: 'gsm8k', port, timeoutMs: 50 })]]),
    defaults: { maxPromptTokens: 4096, maxResponseTokens: 256 },
    slots: new BoundedQueue({ concurrency: 64 }),
    newId: () => `b${id++}`,
  };
}

const sample = (q: string, extra: Record<string, unknown> = {}) => ({ prompt: [{ role: 'user', content: q }], ...extra });
const run = (body: unknown, deps: RolloutDeps) => runRollouts(RolloutRequest.parse(body), deps, new AbortController().signal);
const ok = (r: Trajectory | TrajectoryError): Trajectory => {
  if ('error' in r) throw new Error(`slot failed: ${r.error.message}`);
  return r;
};

describe('runRollouts', () => {
  it('returns n trajectories per sample in request order with group, rollout_n and a shared uid', async () => {
    const out = await run(
      { samples: [sample('a'), sample('b', { uid: 'given' })], n: 3 },
      depsWith(({ promptText }) => `echo ${promptText.includes('user\na') ? 'A' : 'B'}`),
    );
    expect(out.results.map((r) => [r.group, r.rollout_n, r.uid])).toEqual([
      [0, 0, 'b0-0'],
      [0, 1, 'b0-0'],
      [0, 2, 'b0-0'],
      [1, 0, 'given'],
      [1, 1, 'given'],
      [1, 2, 'given'],
    ]);
    expect(out.results.map((r) => ok(r).messages?.at(-1)?.content)).toEqual(['echo A', 'echo A', 'echo A', 'echo B', 'echo B', 'echo B']);
    const first = ok(out.results[0]!);
    expect(first).toMatchObject({ agent_name: 'single_turn_agent', num_turns: 2, stop_reason: 'stop', model_version: 'scripted', data_source: null });
    expect(first.response_ids).toEqual(modelIds('echo A'));
    expect(out.usage).toEqual({
      trajectories: 6,
      errors: 0,
      prompt_tokens: 6 * first.prompt_ids.length,
      completion_tokens: 6 * first.response_ids.length,
      environment_tokens: 0,
      wall_s: expect.any(Number),
    });
  });

  it('batches the concurrent first turns of a request into one model call', async () => {
    const batches: number[] = [];
    await run(
      { samples: [sample('a'), sample('b')], n: 4 },
      depsWith(() => 'x', batches),
    );
    expect(batches).toEqual([8]);
  });

  it('derives distinct, reproducible seeds per trajectory from the request seed', async () => {
    const script: Script = ({ seed }) => `seed=${seed}`;
    const body = { samples: [sample('a'), sample('b')], n: 2, sampling: { seed: 7 } };
    const texts = async () => (await run(body, depsWith(script))).results.map((r) => ok(r).messages?.at(-1)?.content);
    const first = await texts();
    expect(new Set(first).size).toBe(4);
    expect(await texts()).toEqual(first);
    const unseeded = (await run({ samples: [sample('a')] }, depsWith(script))).results.map((r) => ok(r).messages?.at(-1)?.content);
    expect(unseeded).toEqual(['seed=undefined']);
  });

  it('puts a per-trajectory failure in its slot and keeps the others', async () => {
    const out = await run(
      { samples: [sample('short'), sample('x'.repeat(100))], limits: { max_prompt_tokens: 40 } },
      depsWith(() => 'ok'),
    );
    expect('error' in out.results[0]!).toBe(false);
    expect(out.results[1]).toMatchObject({
      group: 1,
      rollout_n: 0,
      error: { code: 'validation_failed', message: expect.stringMatching(/^samples\[1\]\.prompt: \d+ tokens exceed limits\.max_prompt_tokens=40$/) },
    });
    expect(out.usage.errors).toBe(1);
  });

  it('hands each slot, failed ones too, to onSlot once as it finishes, at its index in the answer', async () => {
    const seen: Array<[number, Trajectory | TrajectoryError]> = [];
    const body = RolloutRequest.parse({ samples: [sample('short'), sample('x'.repeat(100)), sample('more')], n: 2, limits: { max_prompt_tokens: 40 } });
    const out = await runRollouts(
      body,
      depsWith(() => 'ok'),
      new AbortController().signal,
      (index, slot) => seen.push([index, slot]),
    );
    expect(seen.map(([i]) => i).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const [index, slot] of seen) expect(slot).toBe(out.results[index]);
    expect(
      seen
        .filter(([, slot]) => 'error' in slot)
        .map(([i]) => i)
        .sort(),
    ).toEqual([2, 3]);
  });

  it('refuses an unknown interaction with a 400 naming the field', async () => {
    const body = { samples: [sample('a'), sample('b', { agent_name: 'tool_agent', extra_info: { interaction_kwargs: { name: 'chess' } } })] };
    await expect(
      run(
        body,
        depsWith(() => 'x'),
      ),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      status: 400,
      message: expect.stringContaining('samples[1].extra_info.interaction_kwargs.name: unknown interaction "chess" (configured: gsm8k)'),
    });
  });

  it('reads tools_kwargs and interaction_kwargs from extra_info like verl’s dataset', async () => {
    const body = {
      samples: [
        sample('q', {
          agent_name: 'tool_agent',
          extra_info: {
            tools_kwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '18' } } },
            interaction_kwargs: { name: 'gsm8k', ground_truth: '18' },
          },
        }),
      ],
    };
    const script: Script = ({ turn }) => ['<tool_call>{"name": "calc_gsm8k_reward", "arguments": {"answer": "18"}}</tool_call>', '#### 18'][turn] ?? '';
    const t = ok((await run(body, depsWith(script))).results[0]!);
    expect(t.messages?.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(t.messages?.[2]?.content).toBe("Current parsed answer='18' reward=1.0");
    expect(t).toMatchObject({ tool_rewards: [0], turn_scores: [1], stop_reason: 'interaction_done', num_turns: 5 });
  });

  it('leaves messages out on request', async () => {
    const out = await run(
      { samples: [sample('a')], include_messages: false },
      depsWith(() => 'x'),
    );
    expect(ok(out.results[0]!).messages).toBeUndefined();
  });
});
