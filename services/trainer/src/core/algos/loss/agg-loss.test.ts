import { describe, expect, it } from 'vitest';
import { aggLoss, LossAggMode } from './agg-loss.ts';
import { expectAllClose, expectGradientMatches, expectInvalid, randomFloats, randomMask } from '../algos.test-support.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);
const shape = { batchSize: 3, seqLen: 4 };
const LM = f64([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
// Row 2 is fully masked: seq-mean modes leave it out of the sequence count.
const AM = f64([1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]);

describe('aggLoss (verl agg_loss)', () => {
  // Hand: masked token sum 3 + 26 = 29 over 6 tokens; row sums 3 and 26; row means 1.5 and 6.5. numpy agg_* agree.
  it.each([
    ['token-mean', 29 / 6],
    ['seq-mean-token-sum', 14.5],
    ['seq-mean-token-mean', 4],
    ['seq-mean-token-sum-norm', 29 / 4],
  ] as const)('%s on the micro-batch', (mode, expected) => {
    expect(aggLoss({ shape, lossMat: LM, lossMask: AM, mode }).loss).toBeCloseTo(expected, 6);
  });

  // Global denominators (dp 2, 10 tokens, 5 sequences, loss_scale_factor 10): numpy agg_global_*.
  it.each([
    ['token-mean', 5.8],
    ['seq-mean-token-sum', 11.6],
    ['seq-mean-token-mean', 3.2],
    ['seq-mean-token-sum-norm', 2.9],
  ] as const)('%s with global batch info', (mode, expected) => {
    const global = { dpSize: 2, batchNumTokens: 10, globalBatchSize: 5, lossScaleFactor: 10 };
    expect(aggLoss({ shape, lossMat: LM, lossMask: AM, mode, global }).loss).toBeCloseTo(expected, 6);
  });

  it('micro-batch losses with global counts add up to the full-batch loss', () => {
    const full = aggLoss({ shape, lossMat: LM, lossMask: AM, mode: 'token-mean' }).loss;
    const half = { batchSize: 1, seqLen: 4 };
    const parts = [0, 1, 2].map(
      (b) =>
        aggLoss({
          shape: half,
          lossMat: LM.subarray(b * 4, b * 4 + 4),
          lossMask: AM.subarray(b * 4, b * 4 + 4),
          mode: 'token-mean',
          global: { batchNumTokens: 6 },
        }).loss,
    );
    expect(parts.reduce((a, b) => a + b, 0)).toBeCloseTo(full, 10);
  });

  it('token-mean ignores NaN under the mask; seq-mean modes propagate it, as verl does', () => {
    const withNaN = LM.slice();
    withNaN[2] = NaN;
    expect(aggLoss({ shape, lossMat: withNaN, lossMask: AM, mode: 'token-mean' }).loss).toBeCloseTo(29 / 6, 6);
    expect(aggLoss({ shape, lossMat: withNaN, lossMask: AM, mode: 'seq-mean-token-sum' }).loss).toBeNaN();
    // NaN in a fully masked row is dropped by masked_sum over sequences.
    const inDeadRow = LM.slice();
    inDeadRow[9] = NaN;
    expect(aggLoss({ shape, lossMat: inDeadRow, lossMask: AM, mode: 'seq-mean-token-mean' }).loss).toBeCloseTo(4, 6);
  });

  it('an all-masked token-mean batch is NaN (0/0), like verl', () => {
    expect(aggLoss({ shape, lossMat: LM, lossMask: new Float64Array(12), mode: 'token-mean' }).loss).toBeNaN();
  });

  it.each(LossAggMode.options)('%s: dLoss/dLossMat matches finite differences', (mode) => {
    const s = { batchSize: 5, seqLen: 7 };
    const mask = randomMask(21, 35);
    mask.fill(0, 7, 14); // one empty row
    const x = randomFloats(22, 35, -2, 2);
    const global = { dpSize: 3, globalBatchSize: 9 };
    const { dLossMat } = aggLoss({ shape: s, lossMat: x, lossMask: mask, mode, global });
    expectGradientMatches((v) => aggLoss({ shape: s, lossMat: v, lossMask: mask, mode, global }).loss, x, dLossMat);
    expectAllClose(dLossMat.subarray(7, 14), new Float64Array(7));
  });

  it('rejects unknown modes', () => {
    expectInvalid(() => aggLoss({ shape, lossMat: LM, lossMask: AM, mode: 'sample-mean' as LossAggMode }), 'lossAggMode');
  });
});
