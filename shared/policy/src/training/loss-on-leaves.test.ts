import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '@rl/service-kit/core';
import { np } from '../model/backend.ts';
import { withValueHead } from '../model/value-head.ts';
import type { PolicyWeights } from '../embedded-policy.ts';
import { trackLiveBuffers } from '../testing/live-buffers.ts';
import { tinyPolicy } from '../testing/tiny-policy.ts';
import { arithmeticTokenizer } from '../tokenizers/tokenizer.ts';
import { decodeSafetensors } from '../weights/safetensors.ts';
import type { PolicyLoss } from './loss-inputs.ts';
import { lossOnLeaves, type LeafValues } from './loss-on-leaves.ts';
import { PolicyTrainer } from './policy-trainer.ts';
import type { TrainBatch } from './train-batch.ts';

const tok = arithmeticTokenizer();
// Three responses of different lengths: padded columns and a filler row (3 pairs -> 4 rows).
const PAIRS = [
  { prompt: tok.encode('6,2:9,6'), response: tok.encode('2,9,6,3') },
  { prompt: tok.encode('1,3:9'), response: tok.encode('3,1') },
  { prompt: tok.encode('4,4,2:1'), response: tok.encode('1,2,4,4,9') },
];
const perToken = (f: (i: number, j: number) => number) => PAIRS.map((p, i) => p.response.map((_, j) => f(i, j)));
const ADVANTAGES = perToken((i, j) => (i === 1 ? -1.5 : 0.8) + 0.1 * j);

/** verl's clipped PPO objective (token-mean) minus an entropy bonus, with its clip fraction and entropy as metrics. */
const ppo: PolicyLoss = (t) => {
  const mask = t.mask;
  const tokens = np.sum(mask.ref);
  const ratio = np.exp(t.logprobs.sub(t.input('old_logprobs')));
  const adv = t.input('advantages');
  const unclipped = ratio.ref.mul(adv.ref).mul(-1);
  const clipped = np.clip(ratio, 0.8, 1.28).mul(adv).mul(-1);
  const clipfrac = np.sum(np.greater(clipped.ref, unclipped.ref).astype(np.float32).mul(mask.ref)).div(tokens.ref);
  const pg = np.sum(np.maximum(unclipped, clipped).mul(mask.ref)).div(tokens.ref);
  const entropy = np.sum(t.entropy.mul(mask)).div(tokens);
  return { loss: pg.sub(entropy.ref.mul(0.01)), metrics: { clipfrac, entropy } };
};

/** verl's clipped value loss, token-mean. */
const valueLoss: PolicyLoss = (t) => {
  const mask = t.mask;
  const v = t.values;
  const old = t.input('old_values');
  const ret = t.input('returns');
  const vclip = np.clip(v.ref, old.ref.sub(0.2), old.add(0.2));
  const loss = np.maximum(np.square(v.sub(ret.ref)), np.square(vclip.sub(ret)));
  return { loss: np.sum(loss.mul(mask.ref)).mul(0.5).div(np.sum(mask)) };
};

/** The surrogate whose weight gradient is J^T g for the given leaf gradients (the chain rule an engine's backward applies). */
const surrogate: PolicyLoss = (t) => {
  let total = np.sum(t.logprobs.mul(t.input('g_logprobs')));
  if (t.inputNames.includes('g_entropy')) total = total.add(np.sum(t.entropy.mul(t.input('g_entropy'))));
  return { loss: total };
};
const valueSurrogate: PolicyLoss = (t) => ({ loss: np.sum(t.values.mul(t.input('g_values'))) });

const SETTINGS = { lr: 1e-3, weightDecay: 0, maxGradNorm: 0 } as const;
let actorWeights: PolicyWeights;
let criticWeights: PolicyWeights;
beforeAll(async () => {
  const init = await tinyPolicy(3);
  actorWeights = await init.exportWeights();
  criticWeights = withValueHead(actorWeights, 5);
  init.dispose();
});

/** The gradient a trainer accumulated, read back from its first-moment (m = (1 - beta1) g after one step at lr 0). */
async function accumulatedGradient(weights: PolicyWeights, batch: TrainBatch, loss: PolicyLoss, scale: number): Promise<Record<string, Float32Array>> {
  const trainer = await PolicyTrainer.create(weights, SETTINGS);
  try {
    await trainer.accumulate(batch, loss, scale);
    await trainer.applyGradients({ lr: 0 });
    const { tensors } = decodeSafetensors(await trainer.exportOptimizerState());
    return Object.fromEntries(Object.entries(tensors).flatMap(([k, t]) => (k.startsWith('m.') ? [[k, Float32Array.from(t.data, (x) => x / 0.1)]] : [])));
  } finally {
    trainer.dispose();
  }
}

function expectSameGradient(actual: Record<string, Float32Array>, expected: Record<string, Float32Array>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  let scale = 0;
  for (const g of Object.values(expected)) for (const x of g) scale = Math.max(scale, Math.abs(x));
  expect(scale).toBeGreaterThan(1e-3);
  const bad: string[] = [];
  for (const [name, want] of Object.entries(expected)) {
    const got = actual[name] as Float32Array;
    want.forEach((w, i) => {
      if (Math.abs((got[i] as number) - w) > 1e-4 * scale) bad.push(`${name}[${i}]: ${got[i]} vs fused ${w}`);
    });
  }
  expect(bad.slice(0, 5)).toEqual([]);
}

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

describe('lossOnLeaves', () => {
  let actor: PolicyTrainer;
  let actorLeaves: LeafValues;
  let batch: TrainBatch;
  beforeAll(async () => {
    actor = await PolicyTrainer.create(actorWeights, SETTINGS);
    const scores = await actor.score(PAIRS);
    actorLeaves = { logprobs: scores.map((s) => s.logprobs), entropy: scores.map((s) => s.entropy) };
    // Old log-probs off the current ones so some tokens clip on both sides.
    const old = scores.map((s, i) => Array.from(s.logprobs, (x, j) => x + ((i + j) % 3 === 0 ? 0.4 : (i + j) % 3 === 1 ? -0.3 : 0.05)));
    batch = { pairs: PAIRS, inputs: { old_logprobs: old, advantages: ADVANTAGES } };
  });
  afterAll(() => actor.dispose());

  it('gives the fused PolicyTrainer step its loss and metrics, and by the chain rule its weight gradient', async () => {
    const scale = 0.5;
    const fused = await actor.accumulate(batch, ppo, scale);
    await actor.applyGradients({ lr: 0 });
    const onLeaves = await lossOnLeaves(ppo, batch, actorLeaves, scale);
    expect(onLeaves.loss).toBeCloseTo(fused.loss, 5);
    expect(Object.keys(onLeaves.metrics).sort()).toEqual(['clipfrac', 'entropy']);
    expect(onLeaves.metrics.clipfrac).toBeGreaterThan(0);
    for (const k of ['clipfrac', 'entropy']) expect(onLeaves.metrics[k]).toBeCloseTo(fused.metrics[k] as number, 5);
    expect(onLeaves.grads.logprobs.map((g) => g.length)).toEqual(PAIRS.map((p) => p.response.length));

    const g = onLeaves.grads;
    const chained = await accumulatedGradient(actorWeights, { pairs: PAIRS, inputs: { g_logprobs: g.logprobs, g_entropy: g.entropy ?? [] } }, surrogate, 1);
    expectSameGradient(chained, await accumulatedGradient(actorWeights, batch, ppo, scale));
  });

  it('matches central finite differences on the leaves, and a leaf the loss does not read gets zeros', async () => {
    const values = perToken(() => 0).map((r) => Float32Array.from(r));
    const res = await lossOnLeaves(ppo, batch, { ...actorLeaves, values }, 2);
    expect(res.grads.values?.flatMap((g) => Array.from(g)).every((x) => x === 0)).toBe(true);
    const lossAt = async (name: 'logprobs' | 'entropy', i: number, j: number, delta: number) => {
      const leaves: LeafValues = { logprobs: actorLeaves.logprobs.map((r) => r.slice()), entropy: actorLeaves.entropy?.map((r) => r.slice()) ?? [] };
      (leaves[name] as Float32Array[])[i]![j]! += delta;
      return 2 * (await lossOnLeaves(ppo, batch, leaves, 2)).loss;
    };
    // Tokens whose ratio sits well inside or outside the clip range (a 1% step does not cross a bound).
    const eps = 1e-2;
    for (const [name, i, j] of [
      ['logprobs', 0, 0],
      ['logprobs', 1, 0],
      ['logprobs', 2, 4],
      ['entropy', 1, 0],
    ] as const) {
      const fd = ((await lossAt(name, i, j, eps)) - (await lossAt(name, i, j, -eps))) / (2 * eps);
      const analytic = (res.grads[name] as Float32Array[])[i]![j]!;
      expect(Math.abs(analytic)).toBeGreaterThan(1e-3);
      expect(analytic).toBeCloseTo(fd, 3);
    }
  });

  it('gives a critic its value loss and, by the chain rule, its weight gradient', async () => {
    const critic = await PolicyTrainer.create(criticWeights, SETTINGS);
    const snap = await critic.snapshot('v');
    const values = await snap.values(PAIRS);
    snap.dispose();
    const criticBatch: TrainBatch = {
      pairs: PAIRS,
      inputs: { old_values: values.map((v, i) => Array.from(v, (x, j) => x + (j % 2 === 0 ? 0.3 : -0.1 * i))), returns: ADVANTAGES },
    };
    const fused = await critic.accumulate(criticBatch, valueLoss);
    critic.dispose();
    const onLeaves = await lossOnLeaves(valueLoss, criticBatch, { logprobs: values.map((v) => new Float32Array(v.length)), values });
    expect(onLeaves.loss).toBeCloseTo(fused.loss, 5);
    expect(onLeaves.grads.logprobs.flatMap((g) => Array.from(g)).every((x) => x === 0)).toBe(true);
    const chained = await accumulatedGradient(criticWeights, { pairs: PAIRS, inputs: { g_values: onLeaves.grads.values ?? [] } }, valueSurrogate, 1);
    expectSameGradient(chained, await accumulatedGradient(criticWeights, criticBatch, valueLoss, 1));
  });

  it('rejects ragged or missing leaves and missing inputs with a 400 naming them', async () => {
    const ragged = { ...actorLeaves, entropy: actorLeaves.entropy?.map((r, i) => (i === 1 ? r.subarray(1) : r)) };
    let e = await errorOf(lossOnLeaves(ppo, batch, ragged));
    expect(e.code).toBe('bad_request');
    expect(e.message).toMatch(/leaves\.entropy\[1\] has 2 values, expected 3/);
    e = await errorOf(lossOnLeaves(ppo, batch, { logprobs: actorLeaves.logprobs.slice(1) }));
    expect(e.message).toMatch(/leaves\.logprobs has 2 rows, expected 3/);
    e = await errorOf(lossOnLeaves(ppo, batch, { logprobs: actorLeaves.logprobs }));
    expect(e.code).toBe('bad_request');
    expect(e.message).toMatch(/loss reads leaves\.entropy, which were not supplied/);
    e = await errorOf(lossOnLeaves(ppo, { pairs: PAIRS, inputs: { advantages: ADVANTAGES } }, actorLeaves));
    expect(e.message).toMatch(/old_logprobs/);
    e = await errorOf(lossOnLeaves(ppo, { pairs: [] }, { logprobs: [] }));
    expect(e.message).toMatch(/batch\.pairs is empty/);
  });

  it('frees every tensor it allocates', async () => {
    const live = await trackLiveBuffers();
    await lossOnLeaves(ppo, batch, actorLeaves, 0.25);
    const before = live();
    for (let i = 0; i < 3; i++) await lossOnLeaves(ppo, batch, actorLeaves, 0.25);
    expect(live()).toBe(before);
  });
});
