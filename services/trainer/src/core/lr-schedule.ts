// verl's learning-rate schedules (verl/utils/torch_functional.py:
// get_cosine_schedule_with_warmup, get_constant_schedule_with_warmup,
// get_wsd_schedule_with_warmup) as torch's LambdaLR applies them: the
// optimizer step k (1-based) runs at lambda(k - 1), so the first step of a
// warmup runs at lr 0. SFT steps the schedule once per optimizer step; RL
// once per training step (verl's actor and critic step their scheduler after
// each update, whatever its mini-batches).

/** Schedule shape (`optim.lr_scheduler`). */
export type LrSchedulerKind = 'cosine' | 'constant' | 'wsd';

/** A schedule over `totalSteps` optimizer steps. */
export interface LrSchedule {
  kind: LrSchedulerKind;
  peakLr: number;
  /** verl: int(total_steps * lr_warmup_steps_ratio). */
  warmupSteps: number;
  /** verl fsdp_sft_trainer: steps_per_epoch * total_epochs (not total_training_steps). */
  totalSteps: number;
  /** cosine: the floor, as a share of the peak (verl optim.min_lr_ratio). @default 0 */
  minLrRatio?: number;
  /** cosine: waves over the schedule (verl optim.num_cycles; 0.5 = from the peak down once). @default 0.5 */
  numCycles?: number;
}

/** wsd: share of the post-warmup steps held at the peak (verl's default stable_ratio). */
const WSD_STABLE_RATIO = 0.9;

/** The multiplier torch's LambdaLR gives at scheduler step `current` (0-based). */
export function lrLambda(s: Omit<LrSchedule, 'peakLr'>, current: number): number {
  const warm = s.warmupSteps;
  if (current < warm) return current / Math.max(1, warm);
  if (s.kind === 'constant') return 1;
  if (s.kind === 'cosine') {
    const min = s.minLrRatio ?? 0;
    const progress = (current - warm) / Math.max(1, s.totalSteps - warm);
    return Math.max(min, Math.cos(Math.PI * (s.numCycles ?? 0.5) * 2 * progress) * (1 - min) * 0.5 + (1 + min) * 0.5);
  }
  const remaining = Math.max(0, s.totalSteps - warm);
  const stable = Math.floor(remaining * WSD_STABLE_RATIO);
  if (current < warm + stable) return 1;
  if (current < s.totalSteps) {
    const progress = (current - warm - stable) / Math.max(1, remaining - stable);
    return Math.max(0, 0.5 * (1 + Math.cos(Math.PI * progress)));
  }
  return 0;
}

/** The learning rate of optimizer step `step` (1-based). */
export function lrAtStep(s: LrSchedule, step: number): number {
  return s.peakLr * lrLambda(s, step - 1);
}

/** verl's warmup step count. */
export function warmupSteps(totalSteps: number, ratio: number): number {
  return Math.floor(totalSteps * ratio);
}
