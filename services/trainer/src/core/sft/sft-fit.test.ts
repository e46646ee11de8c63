import { describe, expect, it } from 'vitest';
import { createBatchSampler } from '../../data/index.ts';
import type { SftSequence } from '../../data/sft/sft-tokenize.ts';
import type { JobEvent } from '../../jobs/job-events.ts';
import type { MetricsRecord } from '../../metrics/index.ts';
import type { TrainerState } from '../controller/trainer-state.ts';
import type { SftPolicyPort } from './ports.ts';
import { sftFit, validationLoss, type SftFitContext } from './sft-fit.ts';

const seq = (i: number): SftSequence => ({ row_id: i, prompt: [1, 2], response: [3, 4, 5], lossMask: [1, 1, 0] });
const rows = Array.from({ length: 8 }, (_, i) => seq(i));
const widths = { promptWidth: 8, responseWidth: 8 };

function fakePolicy() {
  const calls: Array<{ micro: number[]; lr: number; step: number }> = [];
  const exports: Array<string | undefined> = [];
  const policy: SftPolicyPort = {
    sftStep: async (micro, lr, step) => {
      calls.push({ micro: micro.map((m) => m.length), lr, step });
      return { loss: 1 / step, gradNorm: 0.5, skipped: false };
    },
    // log p = -0.5 on every token: the learned tokens' mean NLL is 0.5.
    logprobs: async (pairs) => pairs.map((p) => p.response.map(() => -0.5)),
    export: async (_publish, dir) => {
      exports.push(dir);
      return `v${calls.length}`;
    },
  };
  return { policy, calls, exports };
}

function context(over: Partial<SftFitContext> = {}) {
  const f = fakePolicy();
  const records: MetricsRecord[] = [];
  const events: JobEvent[] = [];
  const commits: TrainerState[] = [];
  let t = 0;
  const c: SftFitContext = {
    job: 'j',
    policy: f.policy,
    sampler: createBatchSampler({ rows, fileSizes: [rows.length] }, { batchSize: 4, shuffle: true, seed: 1 }),
    valRows: rows.slice(0, 5),
    microBatchSize: 2,
    widths,
    schedule: { kind: 'cosine', peakLr: 1e-3, warmupSteps: 1, totalSteps: 4 },
    totalSteps: 4,
    testFreq: 3,
    saveFreq: -1,
    valBeforeTrain: false,
    checkpoints: {
      workerDir: (s) => `/ckpt/global_step_${s}`,
      commit: async (s) => {
        commits.push(s);
        return `/ckpt/global_step_${s.step}`;
      },
      latest: async () => null,
    },
    metrics: { path: 'm', append: async (r) => void records.push(r), close: async () => {} },
    resume: null,
    initialSampler: { epoch: 0, index: 0 },
    emit: (e) => events.push(e),
    signal: new AbortController().signal,
    now: () => (t += 0.25),
    ...over,
  };
  return { c, f, records, events, commits };
}

describe('sftFit (verl fsdp_sft_trainer.fit)', () => {
  it('takes one optimizer step per batch over micro-batches at the scheduled lr, and logs verl SFT metrics', async () => {
    const { c, f, records } = context();
    await sftFit(c);
    expect(f.calls.map((x) => x.micro)).toEqual([
      [2, 2],
      [2, 2],
      [2, 2],
      [2, 2],
    ]);
    // Warmup 1 step: the first step runs at lr 0, then the cosine over 4 steps: lambda(1..3).
    expect(f.calls.map((x) => x.lr)).toEqual([0, 1e-3, 0.5e-3 * (1 + Math.cos(Math.PI / 3)), 0.5e-3 * (1 + Math.cos((2 * Math.PI) / 3))]);
    expect(records.map((r) => r['train/loss'])).toEqual([1, 0.5, 1 / 3, 0.25]);
    expect(records[0]).toMatchObject({
      step: 1,
      'train/lr': 0,
      'train/grad_norm': 0.5,
      'train/learned_tokens': 8,
      'timing_s/step': 0.25,
      'training/global_step': 1,
    });
  });

  it('validates every test_freq steps and at the last step, and checkpoints at the last step', async () => {
    const { c, records, commits, f, events } = context();
    await sftFit(c);
    expect(records.filter((r) => r['val/loss'] !== undefined).map((r) => r.step)).toEqual([3, 4]);
    expect(records[2]!['val/loss']).toBeCloseTo(0.5, 6);
    expect(commits.map((s) => s.step)).toEqual([4]);
    expect(commits[0]).toMatchObject({ sampler: { epoch: 1, index: 8 }, kl_coef: null, version: 'v4' });
    expect(f.exports).toEqual(['/ckpt/global_step_4']);
    expect(events.filter((e) => e.type === 'checkpoint')).toHaveLength(1);
  });

  it('resumes at the checkpointed step and batch', async () => {
    const { c, f } = context({ resume: { step: 2, sampler: { epoch: 1, index: 0 }, kl_coef: null, version: 'v2' } });
    await sftFit(c);
    expect(f.calls.map((x) => x.step)).toEqual([3, 4]);
  });

  it('validation loss drops the last partial batch (verl drop_last) and is null without a full batch', async () => {
    const { policy } = fakePolicy();
    expect(await validationLoss(policy, rows.slice(0, 3), 2, widths)).toBeCloseTo(0.5, 6);
    expect(await validationLoss(policy, rows.slice(0, 1), 2, widths)).toBeNull();
  });
});
