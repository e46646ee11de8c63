import { describe, expect, it } from 'vitest';
import { expectAllClose, expectGradientMatches, expectInvalid, randomFloats, randomMask } from '../algos.test-support.ts';
import { computeEntropyLoss, entropyFromLogits, entropyFromLogitsBackward } from './entropy.ts';

describe('entropyFromLogits (verl entropy_from_logits)', () => {
  it('is log(V) for uniform logits and 0 for a near-one-hot row', () => {
    const h = entropyFromLogits(Float64Array.from([3, 3, 3, 3, 0, -1000, -1000, -1000]), 4);
    expectAllClose(h, [Math.log(4), 0], 1e-6);
  });

  it('matches -sum p log p on a hand example', () => {
    const z = [0, Math.log(2), Math.log(5)]; // p = 1/8, 2/8, 5/8
    const p = [1 / 8, 2 / 8, 5 / 8];
    expect(entropyFromLogits(Float64Array.from(z), 3)[0]).toBeCloseTo(-p.reduce((s, q) => s + q * Math.log(q), 0), 6);
  });

  it('backward matches finite differences', () => {
    const vocab = 7;
    const logits = randomFloats(71, 3 * vocab, -4, 4);
    const upstream = Float64Array.from([0.5, -1, 2]);
    // entropyFromLogits returns float32, which would swamp finite differences; use a double re-statement.
    const total = (z: Float64Array) => {
      let s = 0;
      for (let r = 0; r < 3; r++) s += (upstream[r] as number) * entropyDouble(z.subarray(r * vocab, (r + 1) * vocab));
      return s;
    };
    expectAllClose(
      entropyFromLogits(logits, vocab),
      [0, 1, 2].map((r) => entropyDouble(logits.subarray(r * vocab, (r + 1) * vocab))),
      1e-6,
    );
    expectGradientMatches(total, logits, entropyFromLogitsBackward(logits, vocab, upstream));
  });

  it('rejects a vocabulary size that does not divide the logits', () => {
    expectInvalid(() => entropyFromLogits(new Float64Array(10), 3), 'vocabSize');
  });
});

function entropyDouble(z: Float64Array): number {
  const max = Math.max(...z);
  const sum = z.reduce((s, v) => s + Math.exp(v - max), 0);
  const lse = max + Math.log(sum);
  return lse - z.reduce((s, v) => s + Math.exp(v - lse) * v, 0);
}

describe('computeEntropyLoss (verl compute_entropy_loss / actor entropy_agg)', () => {
  it('aggregates per-token entropy and its gradient is the aggregation weight', () => {
    const shape = { batchSize: 2, seqLen: 5 };
    const entropy = randomFloats(72, 10, 0, 3);
    const responseMask = randomMask(73, 10);
    const r = computeEntropyLoss({ shape, entropy, responseMask, lossAggMode: 'seq-mean-token-sum' });
    expectGradientMatches((x) => computeEntropyLoss({ shape, entropy: x, responseMask, lossAggMode: 'seq-mean-token-sum' }).entropyLoss, entropy, r.dEntropy);
  });
});
