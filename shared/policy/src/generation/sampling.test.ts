import { describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { candidates, idsByLogit, logSoftmaxAt, sampleToken, type SamplerSettings } from './sampling.ts';

// Probabilities 0.5, 0.3, 0.15, 0.05 at temperature 1.
const LOGITS = Float32Array.from([0.5, 0.3, 0.15, 0.05].map(Math.log));
const settings = (s: Partial<SamplerSettings>): SamplerSettings => ({ temperature: 1, topK: 0, topP: 1, ...s });

function histogram(logits: Float32Array, s: SamplerSettings, draws: number, seed: number): number[] {
  const rng = createRng(seed);
  const counts = new Array<number>(logits.length).fill(0);
  for (let i = 0; i < draws; i++) counts[sampleToken(logits, s, rng).id]! += 1;
  return counts;
}

describe('sampleToken', () => {
  it('greedy (temperature 0) takes the argmax, the lower id on ties, and reports the raw log-softmax', () => {
    const t = sampleToken(LOGITS, settings({ temperature: 0 }), createRng(1));
    expect(t.id).toBe(0);
    expect(t.logprob).toBeCloseTo(Math.log(0.5), 6);
    expect(sampleToken(Float32Array.from([1, 3, 3]), settings({ temperature: 0 }), createRng(1)).id).toBe(1);
  });

  it('reports log-probs before temperature whatever the temperature', () => {
    const rng = createRng(7);
    for (let i = 0; i < 50; i++) {
      const t = sampleToken(LOGITS, settings({ temperature: 3 }), rng);
      expect(t.logprob).toBeCloseTo(logSoftmaxAt(LOGITS, t.id), 9);
      expect(t.logprob).toBeCloseTo(Math.log([0.5, 0.3, 0.15, 0.05][t.id]!), 5);
    }
  });

  it('samples in proportion to the probabilities at temperature 1', () => {
    const counts = histogram(LOGITS, settings({}), 20_000, 3);
    [0.5, 0.3, 0.15, 0.05].forEach((p, i) => expect(Math.abs(counts[i]! / 20_000 - p)).toBeLessThan(0.015));
  });

  it('top-k keeps only the k most likely tokens', () => {
    const counts = histogram(LOGITS, settings({ topK: 2 }), 5_000, 4);
    expect(counts[2]).toBe(0);
    expect(counts[3]).toBe(0);
    expect(Math.abs(counts[0]! / 5_000 - 0.5 / 0.8)).toBeLessThan(0.03);
  });

  it('top-p keeps a token while the mass before it is below p', () => {
    expect(candidates(LOGITS, settings({ topP: 0.5 })).ids).toEqual([0]);
    expect(candidates(LOGITS, settings({ topP: 0.8 })).ids).toEqual([0, 1]);
    expect(candidates(LOGITS, settings({ topP: 0.81 })).ids).toEqual([0, 1, 2]);
    expect(candidates(LOGITS, settings({ topP: 0.01 })).ids).toEqual([0]);
    expect(histogram(LOGITS, settings({ topP: 0.8 }), 2_000, 5).slice(2)).toEqual([0, 0]);
  });

  it('applies temperature before top-p (a hot distribution keeps more tokens)', () => {
    // Tempered masses: T=0.5 -> .685 .247 .062 .007; T=1 -> .5 .3 .15 .05; T=5 -> .301 .272 .237 .190.
    expect(candidates(LOGITS, settings({ topP: 0.85, temperature: 0.5 })).ids).toEqual([0, 1]);
    expect(candidates(LOGITS, settings({ topP: 0.85 })).ids).toEqual([0, 1, 2]);
    expect(candidates(LOGITS, settings({ topP: 0.85, temperature: 5 })).ids).toEqual([0, 1, 2, 3]);
    const cold = candidates(LOGITS, settings({ temperature: 0.5 }));
    expect(cold.weights[1]! / cold.weights[0]!).toBeCloseTo((0.3 / 0.5) ** 2, 5);
  });

  it('a low temperature concentrates the draws on the mode', () => {
    const counts = histogram(LOGITS, settings({ temperature: 0.1 }), 1_000, 6);
    expect(counts[0]).toBeGreaterThan(990);
  });

  it('is deterministic for a seed', () => {
    expect(histogram(LOGITS, settings({}), 200, 9)).toEqual(histogram(LOGITS, settings({}), 200, 9));
  });
});

describe('idsByLogit', () => {
  it('orders float32 logits exactly as a comparator sort (highest first, ties by lower id), negatives, zeros and infinities included', () => {
    const rng = createRng(11);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + rng.int(0, 700);
      const logits = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const r = rng.next();
        logits[i] =
          r < 0.1 ? 0 : r < 0.15 ? -0 : r < 0.17 ? -Infinity : r < 0.18 ? Infinity : r < 0.4 ? Math.round((rng.next() - 0.5) * 8) : (rng.next() - 0.5) * 40;
      }
      const expected = Array.from({ length: n }, (_, i) => i).sort((a, b) => logits[b]! - logits[a]! || a - b);
      expect(idsByLogit(logits)).toEqual(expected);
    }
  });
});
