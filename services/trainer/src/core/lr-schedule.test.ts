import { describe, expect, it } from 'vitest';
import { lrAtStep, lrLambda, warmupSteps } from './lr-schedule.ts';

describe('SFT lr schedules (verl torch_functional, LambdaLR semantics)', () => {
  const base = { peakLr: 1e-3, warmupSteps: 10, totalSteps: 100 };

  it('warms up linearly from 0: the first optimizer step runs at lr 0', () => {
    const s = { ...base, kind: 'cosine' as const };
    expect(lrAtStep(s, 1)).toBe(0);
    expect(lrAtStep(s, 6)).toBeCloseTo(5e-4, 12);
    expect(lrAtStep(s, 11)).toBeCloseTo(1e-3, 12);
  });

  it('cosine reaches 0 at total_steps', () => {
    const s = { ...base, kind: 'cosine' as const };
    // lambda(55) = 0.5 * (1 + cos(pi * 45/90)) = 0.5
    expect(lrLambda(s, 55)).toBeCloseTo(0.5, 12);
    expect(lrLambda(s, 100)).toBeCloseTo(0, 12);
    // Past the end the cosine comes back up (cos(pi * 120/90) = -0.5 -> 0.25), exactly as verl's lambda does.
    expect(lrLambda(s, 130)).toBeCloseTo(0.25, 12);
  });

  it('constant holds the peak after warmup; wsd holds 90% of the rest, then decays to 0', () => {
    expect(lrLambda({ ...base, kind: 'constant' }, 99)).toBe(1);
    const wsd = { ...base, kind: 'wsd' as const };
    // remaining 90 -> 81 stable steps: 10..90 hold 1; the decay starts at 91 (progress 0), 9 steps long.
    expect(lrLambda(wsd, 90)).toBe(1);
    expect(lrLambda(wsd, 91)).toBe(1);
    expect(lrLambda(wsd, 92)).toBeCloseTo(0.5 * (1 + Math.cos(Math.PI / 9)), 12);
    expect(lrLambda(wsd, 100)).toBe(0);
  });

  it('warmup steps are int(total * ratio)', () => {
    expect(warmupSteps(95, 0.1)).toBe(9);
    expect(warmupSteps(10, 0)).toBe(0);
    expect(lrAtStep({ ...base, warmupSteps: 0, kind: 'constant' }, 1)).toBe(1e-3);
  });
});

describe("verl's cosine floor and cycles (RL actor and critic optim)", () => {
  it('decays to min_lr_ratio and follows num_cycles', () => {
    const s = { kind: 'cosine' as const, warmupSteps: 0, totalSteps: 10, minLrRatio: 0.1 };
    expect(lrLambda(s, 0)).toBeCloseTo(1, 12);
    expect(lrLambda(s, 5)).toBeCloseTo(0.55, 12);
    expect(lrLambda(s, 10)).toBeCloseTo(0.1, 12);
    expect(lrLambda(s, 12)).toBeCloseTo(0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * 1.2)), 12);
    // One full wave: back at the peak at the end.
    expect(lrLambda({ ...s, minLrRatio: 0, numCycles: 1 }, 10)).toBeCloseTo(1, 12);
    expect(lrLambda({ ...s, minLrRatio: 0, numCycles: 1 }, 5)).toBeCloseTo(0, 12);
  });
});
