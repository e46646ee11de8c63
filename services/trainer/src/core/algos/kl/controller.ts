import { z } from 'zod';
import { invalid } from '../types.ts';

/** verl `algorithm.kl_ctrl` (KLControlConfig), same keys and defaults. */
export const KlCtrlConfig = z.strictObject({
  /** "fixed" keeps kl_coef; "adaptive" follows Ziegler et al. 2019. @default "fixed" */
  type: z.enum(['fixed', 'adaptive']).default('fixed'),
  /** Initial (or fixed) KL coefficient beta. @default 0.001 */
  kl_coef: z.number().default(0.001),
  /** Adaptive only: steps over which the coefficient may change by ±20%. @default 10000 */
  horizon: z.number().default(10000),
  /** Adaptive only: KL the controller steers towards. @default 0.1 */
  target_kl: z.number().default(0.1),
});
/** Parsed KL controller configuration. */
export type KlCtrlConfig = z.infer<typeof KlCtrlConfig>;

/** A KL coefficient that may adapt to the measured KL (verl Fixed/AdaptiveKLController). */
export interface KlController {
  /** Current coefficient beta; checkpoint it and pass it back as `initialValue` on resume. */
  readonly value: number;
  /** Updates beta from the batch's mean KL; `nSteps` is the batch size in verl. */
  update(currentKl: number, nSteps: number): void;
  /** Sets beta back to a value it had (a retried step must not move it twice). */
  restore(value: number): void;
}

/**
 * verl AdaptiveKLController.update: beta *= 1 + clip(kl / target - 1, -0.2, 0.2) * nSteps / horizon.
 * FixedKLController.update is a no-op.
 */
export function nextKlCoef(config: KlCtrlConfig, value: number, currentKl: number, nSteps: number): number {
  if (config.type === 'fixed') return value;
  const error = Math.min(Math.max(currentKl / config.target_kl - 1, -0.2), 0.2);
  return value * (1 + (error * nSteps) / config.horizon);
}

/** verl `get_kl_controller`: adaptive controllers need horizon > 0. */
export function createKlController(config: KlCtrlConfig, initialValue: number = config.kl_coef): KlController {
  if (config.type === 'adaptive' && !(config.horizon > 0)) {
    throw invalid('kl_ctrl.horizon', `must be larger than 0, got ${config.horizon}`);
  }
  let value = initialValue;
  return {
    get value() {
      return value;
    },
    update(currentKl, nSteps) {
      value = nextKlCoef(config, value, currentKl, nSteps);
    },
    restore(v) {
      value = v;
    },
  };
}
