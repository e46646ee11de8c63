import { describe, expect, it } from 'vitest';
import { LossAggMode } from './agg-loss.ts';
import { expectGradientMatches, expectInvalid, randomFloats, randomMask } from '../algos.test-support.ts';
import { computeValueLoss } from './value-loss.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computeValueLoss (verl compute_value_loss)', () => {
  const fixture = {
    shape: { batchSize: 2, seqLen: 4 },
    vpreds: f64([0.0, 1.0, 2.5, -1.0, 0.2, 0.9, 3.0, 0.0]),
    returns: f64([0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0]),
    values: f64([0.1, 0.4, 1.0, -0.5, 0.0, 2.0, 1.1, 0.0]),
    responseMask: f64([1, 1, 1, 1, 1, 1, 1, 0]),
    cliprangeValue: 0.5,
  };

  it('takes the larger of the clipped and unclipped squared errors (numpy vf)', () => {
    // Token (0,2): vpred 2.5 clipped to 1.5 around 1.0 -> max(4, 1) = 4. Token (1,1): vpred 0.9 clipped
    // to 1.5 around 2.0 -> max(0.01, 0.25) = 0.25, the one clipped token of 7.
    const r = computeValueLoss(fixture);
    expect(r.vfLoss).toBeCloseTo(0.83142853, 6);
    expect(r.vfClipfrac).toBeCloseTo(1 / 7, 7);
  });

  it.each(LossAggMode.options)('%s: dLoss/dvpreds matches finite differences', (mode) => {
    const shape = { batchSize: 4, seqLen: 6 };
    const values = randomFloats(51, 24, -1, 1);
    const offset = randomFloats(52, 24, -1.2, 1.2);
    const vpreds = values.map((v, i) => v + (offset[i] as number));
    const cfg = { shape, values, returns: randomFloats(53, 24, -1, 1), responseMask: randomMask(54, 24), cliprangeValue: 0.5, lossAggMode: mode };
    const r = computeValueLoss({ ...cfg, vpreds });
    expect(r.vfClipfrac).toBeGreaterThan(0);
    expectGradientMatches((x) => computeValueLoss({ ...cfg, vpreds: x }).vfLoss, vpreds, r.dVpreds);
  });

  it('names mis-shaped inputs', () => {
    expectInvalid(() => computeValueLoss({ ...fixture, returns: f64([1]) }), 'returns');
  });
});
