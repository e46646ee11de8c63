import { ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import type { DatasetRow } from '../../data/index.ts';
import type { RewardClient } from '@rl/client';
import { AlgoConfig } from '../algos/index.ts';
import type { PolicyPort, RolloutPort, RolloutResult, RolloutSampling } from './ports.ts';
import { createRewardCache } from './reward-stream.ts';
import { runStep, type StepContext } from './step.ts';

const row = (id: number, answer: string): DatasetRow => ({
  row_id: id,
  file_index: 0,
  data_source: 'openai/gsm8k',
  prompt: `q${id}`,
  prompt_without_context: null,
  ability: null,
  ground_truth: answer,
  reward_model: null,
  extra_info: {},
  agent_name: null,
  tools_kwargs: {},
  interaction_kwargs: {},
  index: id,
});

// Greedy rollouts answer "1"; sampled ones alternate "1" and "2" within each group.
function fakeRollout(calls: RolloutSampling[]): RolloutPort {
  return {
    takeComputeSeconds: () => 0,
    rollout: async (rows, s) => {
      calls.push(s);
      const out: RolloutResult[] = [];
      rows.forEach((r, i) => {
        for (let k = 0; k < s.n; k++) {
          const text = s.temperature === 0 || k % 2 === 0 ? '1' : '2';
          out.push({ row: i, uid: `u${r.row_id}`, promptIds: [1], responseIds: [5, 6], responseMask: [1, 1], text, modelVersion: 'v0' });
        }
      });
      return out;
    },
  };
}

const rewards: RewardClient = {
  score: async (items) => ({
    results: items.map((it) => ({ score: it.solution_str === it.ground_truth ? 1 : 0, extra: {}, error: null })),
    stats: { requests: 1, retries: 0, splits: 0, itemsBySubject: {} },
  }),
} as RewardClient;

function fakePolicy(updates: unknown[]): PolicyPort {
  return {
    logprobs: async (_m, pairs) => ({ logprobs: pairs.map((p) => p.response.map(() => -1)) }),
    update: async (body) => {
      updates.push(body);
      return { version: 'v1', metrics: {} };
    },
    export: async () => 'v1',
    version: async () => 'v1',
    // A critic that values every state at 0.25 (GAE tests).
    values: async (pairs) => pairs.map((p) => p.response.map(() => 0.25)),
    updateCritic: async (body) => {
      updates.push({ critic: body });
      return { 'critic/vf_loss': 0.1 };
    },
    takeComputeSeconds: () => 0,
  };
}

function ctx(estimator: string, calls: RolloutSampling[], updates: unknown[]): StepContext {
  return {
    policy: fakePolicy(updates),
    rollout: fakeRollout(calls),
    rewards,
    algorithm: AlgoConfig.parse({ adv_estimator: estimator }),
    sampling: { temperature: 1, topP: 1, topK: -1, n: 4, maxTokens: 8, seed: 7 },
    loss: { ppo_mini_batch_size: 8 },
    needRef: false,
    tokenRewardsKey: null,
    widths: { promptWidth: 8, responseWidth: 8 },
    signal: new AbortController().signal,
  };
}

type Update = { batch: Array<{ advantages: number[] }> };

describe('runStep', () => {
  it('remax: a greedy rollout per prompt gives the baseline; advantage = reward-to-go - baseline (verl RayPPOTrainer.fit)', async () => {
    const calls: RolloutSampling[] = [];
    const updates: unknown[] = [];
    // Row 0's answer is "1" (the greedy one: baseline 1), row 1's is "2" (greedy wrong: baseline 0).
    const out = await runStep(ctx('remax', calls, updates), 3, 0, [row(0, '1'), row(1, '2')], 'v0');
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ temperature: 0, n: 1 });
    const adv = (updates[0] as Update).batch.map((b) => b.advantages);
    // Row 0: scores 1,0,1,0 minus baseline 1; row 1: scores 0,1,0,1 minus baseline 0. Reward-to-go is the score on every token.
    expect(adv).toEqual([
      [0, 0],
      [-1, -1],
      [0, 0],
      [-1, -1],
      [0, 0],
      [1, 1],
      [0, 0],
      [1, 1],
    ]);
    expect(out.metrics['timing_s/gen_max']).toBeTypeOf('number');
  });

  it('other estimators make no baseline rollout', async () => {
    const calls: RolloutSampling[] = [];
    await runStep(ctx('grpo', calls, []), 1, 0, [row(0, '1')], 'v0');
    expect(calls).toHaveLength(1);
  });

  it('fails the step with upstream_error, not retried, when every rollout failed', async () => {
    const failing: RolloutPort = {
      takeComputeSeconds: () => 0,
      rollout: async (rows) =>
        rows.map((r, i) => ({
          row: i,
          uid: `u${r.row_id}`,
          promptIds: [1],
          responseIds: [],
          responseMask: [],
          text: '',
          modelVersion: 'v0',
          error: { code: 'timeout', message: 'no reply' },
        })),
    };
    const err = await runStep({ ...ctx('grpo', [], []), rollout: failing }, 4, 0, [row(0, '1')], 'v0').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.UpstreamError, retryable: false, message: 'step 4: every rollout failed (no reply)' });
  });
});

describe('runStep with a critic (GAE, verl fit)', () => {
  const gae = (warmup: number, calls: RolloutSampling[], updates: unknown[]): StepContext => ({
    ...ctx('gae', calls, updates),
    algorithm: AlgoConfig.parse({ adv_estimator: 'gae', gamma: 1, lam: 1 }),
    critic: { warmup, loss: { ppo_epochs: 1, ppo_mini_batch_size: 8, lr: 1e-5 } },
  });

  it('values the states, updates the critic on GAE returns, then the actor on whitened advantages', async () => {
    const updates: unknown[] = [];
    const out = await runStep(gae(0, [], updates), 1, 0, [row(0, '1')], 'v0');
    const critic = (updates[0] as { critic: { batch: Array<{ values: number[]; returns: number[] }> } }).critic;
    // gamma = lam = 1: the return of every token is the sequence score (1 for "1", 0 for "2"); values are the critic's 0.25.
    expect(critic.batch.map((b) => b.returns)).toEqual([
      [1, 1],
      [0, 0],
      [1, 1],
      [0, 0],
    ]);
    expect(critic.batch[0]!.values).toEqual([0.25, 0.25]);
    expect(updates).toHaveLength(2);
    expect(out.metrics['critic/vf_loss']).toBe(0.1);
    expect(out.metrics['critic/values/mean']).toBe(0.25);
    expect(out.metrics['critic/returns/mean']).toBe(0.5);
    expect(out.metrics['timing_s/values']).toBeTypeOf('number');
    expect(out.metrics['timing_s/update_critic']).toBeTypeOf('number');
  });

  it("sends each model's scheduled learning rate of the step with its update", async () => {
    const updates: unknown[] = [];
    const scheduled: StepContext = { ...gae(0, [], updates), lr: { actor: (step) => step * 1e-3, critic: (step) => step * 1e-4 } };
    await runStep(scheduled, 3, 0, [row(0, '1')], 'v0');
    const [critic, actor] = updates as [{ critic: { loss: { lr: number } } }, { loss: { lr: number } }];
    expect(critic.critic.loss.lr).toBeCloseTo(3e-4, 12);
    expect(actor.loss.lr).toBeCloseTo(3e-3, 12);
  });

  it('during trainer.critic_warmup only the critic trains', async () => {
    const updates: unknown[] = [];
    await runStep(gae(2, [], updates), 1, 0, [row(0, '1')], 'v0');
    expect(updates).toHaveLength(1);
    expect(updates[0]).toHaveProperty('critic');
    await runStep(gae(2, [], updates), 2, 0, [row(0, '1')], 'v0');
    expect(updates).toHaveLength(3);
  });
});

describe('runStep with story signals (reward.signals)', () => {
  it('asks the worker for the pass without r and entropies before scoring, and sends each reply its own mask-1 signals', async () => {
    const asked: unknown[] = [];
    const sent: Array<{ data_source: string; signals?: unknown }> = [];
    const policy: PolicyPort = {
      ...fakePolicy([]),
      logprobs: async (_m, pairs, entropy, _w, without) => {
        asked.push({ entropy, without });
        return {
          logprobs: pairs.map((_, i) => [-1 - i, -2]),
          entropies: pairs.map(() => [0.5, 0.7]),
          logprobsWithoutContext: without!.entries.map(({ index }) => [-3 - index, -4]),
          withoutContextComputeS: 0.01,
        };
      },
    };
    const scoring: RewardClient = {
      score: async (items) => {
        sent.push(...items);
        return {
          results: items.map(() => ({ score: 0.5, extra: { info_gain: 0.6 }, error: null })),
          stats: { requests: 1, retries: 0, splits: 0, itemsBySubject: {} },
        };
      },
    } as RewardClient;
    const story = { ...row(0, 'ref'), data_source: 'story', prompt_without_context: 'bare' };
    const step: StepContext = {
      ...ctx('grpo', [], []),
      policy,
      rewards: scoring,
      rollout: {
        takeComputeSeconds: () => 0,
        // The second reply's last token came from a tool (mask 0): not the model's.
        rollout: async () =>
          [0, 1].map(
            (k): RolloutResult => ({
              row: 0,
              uid: 'u',
              promptIds: [1, 2],
              responseIds: [5, 6],
              responseMask: k === 0 ? [1, 1] : [1, 0],
              text: 't',
              modelVersion: 'v0',
            }),
          ),
      },
      signals: { needs: (ds) => ds === 'story', promptIds: () => [9], promptWidth: 4 },
    };
    const out = await runStep(step, 1, 0, [story], 'v0');
    expect(asked).toEqual([
      {
        entropy: true,
        without: {
          entries: [
            { index: 0, prompt: [9] },
            { index: 1, prompt: [9] },
          ],
          promptWidth: 4,
        },
      },
    ]);
    expect(sent.map((s) => s.signals)).toEqual([
      { logprobs_with_context: [-1, -2], logprobs_without_context: [-3, -4], entropies: [0.5, 0.7] },
      { logprobs_with_context: [-2], logprobs_without_context: [-4], entropies: [0.5] },
    ]);
    expect(out.metrics['reward/story/info_gain/mean']).toBe(0.6);
    expect(out.metrics['perf/signals_compute_s']).toBe(0.01);
  });

  it('sends no signals (and asks for no second pass) for rows whose reward takes none', async () => {
    const asked: unknown[] = [];
    const policy: PolicyPort = {
      ...fakePolicy([]),
      logprobs: async (_m, pairs, entropy, _w, without) => (asked.push({ entropy, without }), { logprobs: pairs.map((p) => p.response.map(() => -1)) }),
    };
    await runStep(
      { ...ctx('grpo', [], []), policy, signals: { needs: (ds) => ds === 'story', promptIds: () => [9], promptWidth: 4 } },
      1,
      0,
      [row(0, '1')],
      'v0',
    );
    expect(asked).toEqual([{ entropy: false, without: undefined }]);
  });
});

describe('runStep with rewards while the rollouts run (reward.stream)', () => {
  /**
   * Rollouts that hand over all but the last result, then wait until a scoring call has arrived before
   * finishing: a step that only scores after generation never gets there (the gate times out the test).
   */
  function gatedRollout(scoringStarted: Promise<void>): RolloutPort {
    const inner = fakeRollout([]);
    return {
      takeComputeSeconds: () => 0,
      rollout: async (rows, s, version, signal, onResult) => {
        const all = await inner.rollout(rows, s, version, signal);
        all.slice(0, -1).forEach((r, i) => onResult?.(i, r));
        await scoringStarted;
        onResult?.(all.length - 1, all.at(-1)!);
        return all;
      },
    };
  }

  function countingRewards() {
    const calls: number[] = [];
    const { promise, resolve } = Promise.withResolvers<void>();
    const client = {
      score: async (items: Parameters<RewardClient['score']>[0]) => {
        calls.push(items.length);
        resolve();
        return rewards.score(items);
      },
    } as RewardClient;
    return { client, calls, started: promise };
  }

  it('scores the handed-over rollouts before generation ends, with the same updates and metrics as after it', async () => {
    const plainUpdates: unknown[] = [];
    const plain = await runStep(ctx('grpo', [], plainUpdates), 1, 0, [row(1, '1'), row(2, '2')], 'v0');

    const { client, calls, started } = countingRewards();
    const streamedUpdates: unknown[] = [];
    const streamed = await runStep(
      {
        ...ctx('grpo', [], streamedUpdates),
        rollout: gatedRollout(started),
        rewards: client,
        rewardFlow: { streaming: true, cache: createRewardCache({ acrossSteps: true, maxReusable: 100 }), maxInFlight: 2 },
      },
      1,
      0,
      [row(1, '1'), row(2, '2')],
      'v0',
    );
    expect(streamedUpdates).toEqual(plainUpdates);
    const scores = (m: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith('critic/score') || k.startsWith('critic/rewards')));
    expect(Object.keys(scores(plain.metrics))).toContain('critic/score/mean');
    expect(scores(streamed.metrics)).toEqual(scores(plain.metrics));
    // 8 rollouts, 2 distinct answers per prompt: 4 items reach the services, the other 4 are shared.
    expect(calls.reduce((a, b) => a + b, 0)).toBe(4);
    expect([streamed.metrics['reward/cache_hits'], streamed.metrics['reward/cache_hit_rate']]).toEqual([4, 0.5]);
    expect([plain.metrics['reward/cache_hits'], plain.metrics['reward/cache_hit_rate']]).toEqual([0, 0]);
  });
});
