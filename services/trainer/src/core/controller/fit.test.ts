import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { createBatchSampler, type DatasetRow } from '../../data/index.ts';
import type { JobEvent } from '../../jobs/job-events.ts';
import type { MetricsRecord } from '../../metrics/index.ts';
import type { RewardClient } from '@rl/client';
import { AlgoConfig, createKlController, KlCtrlConfig } from '../algos/index.ts';
import { fit, type FitContext } from './fit.ts';
import type { PolicyPort, RolloutPort, TraceAt, TracePort } from './ports.ts';
import type { TrainerState } from './trainer-state.ts';

const row = (id: number): DatasetRow => ({
  row_id: id,
  file_index: 0,
  data_source: 'd',
  prompt: `q${id}`,
  prompt_without_context: null,
  ability: null,
  ground_truth: '1',
  reward_model: null,
  extra_info: {},
  agent_name: null,
  tools_kwargs: {},
  interaction_kwargs: {},
  index: id,
});
const rows = Array.from({ length: 8 }, (_, i) => row(i));

function context(failures: number) {
  let failuresLeft = failures;
  const rollout: RolloutPort = {
    takeComputeSeconds: () => 0,
    rollout: async (rs, s) => {
      return rs.flatMap((r, i) =>
        Array.from({ length: s.n }, (_, k) => ({
          row: i,
          uid: `u${r.row_id}`,
          promptIds: [1],
          responseIds: [2, 3],
          responseMask: [1, 1],
          text: k % 2 === 0 ? '1' : '2',
          modelVersion: 'v',
        })),
      );
    },
  };
  const rewards = {
    score: async (items: readonly { solution_str: string }[]) => ({
      results: items.map((it) => ({ score: it.solution_str === '1' ? 1 : 0, extra: {}, error: null })),
      stats: { requests: 1, retries: 0, splits: 0, itemsBySubject: {} },
    }),
  } as unknown as RewardClient;
  let updates = 0;
  const policy: PolicyPort = {
    logprobs: async (model, pairs) => ({ logprobs: pairs.map((p) => p.response.map(() => (model === 'ref' ? -2 : -1))) }),
    // The first `failures` updates are lost on the bus, after the advantages (and the KL coefficient) were computed.
    update: async () => {
      if (failuresLeft-- > 0) throw new AppError(ErrorCode.Unavailable, 'bus down', { retryable: true });
      return { version: `v${++updates}`, metrics: {} };
    },
    values: async () => [],
    updateCritic: async () => ({}),
    export: async () => `v${updates}`,
    version: async () => `v${updates}`,
    takeComputeSeconds: () => 0,
  };
  const kl = createKlController(KlCtrlConfig.parse({ type: 'adaptive', kl_coef: 0.1, horizon: 10, target_kl: 0.01 }));
  const records: MetricsRecord[] = [];
  const events: JobEvent[] = [];
  const commits: TrainerState[] = [];
  const sampling = { temperature: 1, topP: 1, topK: -1, n: 2, maxTokens: 4, seed: 1 };
  const c: FitContext = {
    job: 'j',
    step: {
      policy,
      rollout,
      rewards,
      kl,
      sampling,
      algorithm: AlgoConfig.parse({ adv_estimator: 'grpo', use_kl_in_reward: true, kl_ctrl: { type: 'adaptive', kl_coef: 0.1, horizon: 10, target_kl: 0.01 } }),
      loss: { ppo_mini_batch_size: 4 },
      needRef: true,
      tokenRewardsKey: null,
      widths: { promptWidth: 8, responseWidth: 8 },
      signal: new AbortController().signal,
    },
    sampler: createBatchSampler({ rows, fileSizes: [8] }, { batchSize: 2, shuffle: false, seed: 1 }),
    valData: { rows: rows.slice(0, 2), fileSizes: [2], files: [], filteredOverlong: 0 },
    valBatchSize: null,
    valSampling: { ...sampling, temperature: 0, n: 1 },
    rollout,
    rewards,
    kl,
    totalSteps: 3,
    testFreq: 2,
    saveFreq: 2,
    valBeforeTrain: true,
    checkpoints: { workerDir: (s) => `/c/${s}`, commit: async (s) => (commits.push(s), `/c/${s.step}`), latest: async () => null },
    metrics: { path: 'm', append: async (r) => void records.push(r), close: async () => {} },
    resume: null,
    initialSampler: { epoch: 0, index: 0 },
    emit: (e) => events.push(e),
    signal: new AbortController().signal,
    stepRetry: { sleep: async () => {} },
  };
  return { c, kl, records, events, commits, updates: () => updates };
}

describe('fit (verl RayPPOTrainer.fit)', () => {
  it('validates before training, every test_freq and at the last step; checkpoints every save_freq and at the last step', async () => {
    const { c, records, commits } = context(0);
    await fit(c);
    expect(records.map((r) => r.step)).toEqual([0, 1, 2, 3]);
    expect(records.filter((r) => Object.keys(r).some((k) => k.startsWith('val-core/'))).map((r) => r.step)).toEqual([0, 2, 3]);
    expect(commits.map((s) => s.step)).toEqual([2, 3]);
  });

  it('a step lost on the bus is re-run on the same batch, once, and moves an adaptive KL coefficient once', async () => {
    const clean = context(0);
    await fit(clean.c);
    const retried = context(2);
    await fit(retried.c);
    expect(retried.events.filter((e) => e.type === 'log' && /retrying step 1/.test(e.message))).toHaveLength(2);
    expect(retried.records.map((r) => [r.step, r['data/first_row_id']])).toEqual(clean.records.map((r) => [r.step, r['data/first_row_id']]));
    expect(retried.updates()).toBe(3);
    expect(retried.kl.value).toBe(clean.kl.value);
    expect(retried.kl.value).not.toBe(0.1);
  });

  it('runs each step as one root span, its stages (timing_s names), validation and checkpoint as children', async () => {
    type Node = { name: string; at?: TraceAt; children: Node[] };
    const roots: Node[] = [];
    let current: Node | undefined;
    const within = async <T>(node: Node, fn: () => Promise<T>): Promise<T> => {
      const parent = current;
      current = node;
      try {
        return await fn();
      } finally {
        current = parent;
      }
    };
    // The loop is sequential, so a stack of "current" spans is enough to record the nesting.
    const trace: TracePort = {
      root: (name, at, fn) => {
        const node = { name, at, children: [] };
        roots.push(node);
        return within(node, fn);
      },
      span: (name, fn) => {
        const node = { name, children: [] };
        current!.children.push(node);
        return within(node, fn);
      },
      bind: (fn) => fn,
    };
    const { c, records } = context(1);
    c.trace = trace;
    c.step.trace = trace;
    await fit(c);
    expect(roots.map((r) => [r.name, r.at])).toEqual([
      ['trainer.validate', { job: 'j', step: 0 }],
      ['trainer.step', { job: 'j', step: 1, epoch: 0 }],
      ['trainer.step', { job: 'j', step: 2, epoch: 0 }],
      ['trainer.step', { job: 'j', step: 3, epoch: 0 }],
    ]);
    const stages = ['gen', 'old_log_prob', 'reward', 'ref', 'adv', 'update_actor', 'publish'];
    expect(roots[0]!.children.map((n) => n.name)).toEqual(['testing']);
    // Step 1 failed once in update_actor: its second attempt's stages follow the first's in the same trace.
    expect(roots[1]!.children.map((n) => n.name)).toEqual([...stages.slice(0, 6), ...stages]);
    expect(roots[2]!.children.map((n) => n.name)).toEqual([...stages, 'testing', 'save_checkpoint']);
    expect(roots[3]!.children.map((n) => n.name)).toEqual([...stages, 'testing', 'save_checkpoint']);
    // Every stage span is a timing_s metric of its step.
    for (const [i, root] of roots.slice(1).entries()) {
      for (const n of root.children.filter((n) => stages.includes(n.name))) expect(records[i + 1]![`timing_s/${n.name}`]).toBeTypeOf('number');
    }
  });
});
