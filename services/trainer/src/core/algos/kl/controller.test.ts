import { describe, expect, it } from 'vitest';
import { expectInvalid } from '../testing/assertions.ts';
import { KlCtrlConfig, createKlController, nextKlCoef } from './controller.ts';

describe('KL controllers (verl FixedKLController / AdaptiveKLController)', () => {
  const adaptive = KlCtrlConfig.parse({ type: 'adaptive', kl_coef: 0.002, horizon: 5000, target_kl: 0.05 });

  it('restore sets the coefficient back (a retried step starts from the same one)', () => {
    const ctrl = createKlController(adaptive);
    ctrl.update(0.06, 256);
    expect(ctrl.value).not.toBe(0.002);
    ctrl.restore(0.002);
    expect(ctrl.value).toBe(0.002);
  });

  it('fixed never changes', () => {
    const ctrl = createKlController(KlCtrlConfig.parse({}));
    ctrl.update(100, 256);
    expect(ctrl.value).toBe(0.001);
  });

  it('adaptive: beta *= 1 + clip(kl/target - 1, ±0.2) * n_steps / horizon', () => {
    // kl 0.06 -> error 0.2 (exactly at the bound); 1 + 0.2 * 256 / 5000 = 1.01024
    expect(nextKlCoef(adaptive, 0.002, 0.06, 256)).toBeCloseTo(0.002 * 1.01024, 12);
    // kl 0.055 -> error 0.1; 1 + 0.1 * 100 / 5000 = 1.002
    expect(nextKlCoef(adaptive, 0.002, 0.055, 100)).toBeCloseTo(0.002 * 1.002, 12);
    // kl 0 -> error clipped to -0.2; 1 - 0.2 * 256 / 5000 = 0.98976
    expect(nextKlCoef(adaptive, 0.002, 0, 256)).toBeCloseTo(0.002 * 0.98976, 12);
  });

  it('adaptive controllers accumulate updates and resume from a checkpointed value', () => {
    const ctrl = createKlController(adaptive);
    ctrl.update(1, 5000);
    ctrl.update(1, 5000);
    expect(ctrl.value).toBeCloseTo(0.002 * 1.2 * 1.2, 12);
    expect(createKlController(adaptive, ctrl.value).value).toBe(ctrl.value);
  });

  it('requires horizon > 0 for adaptive', () => {
    expectInvalid(() => createKlController({ ...adaptive, horizon: 0 }), 'kl_ctrl.horizon');
  });
});
