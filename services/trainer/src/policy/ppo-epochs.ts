// verl's PPO update loop (dp_actor.update_policy, dp_critic.update_critic):
// for each of ppo_epochs, the batch is cut into mini-batches (reshuffled every
// epoch with a seeded generator when `shuffle` is on, as the new worker's
// make_iterator does; in order otherwise), each mini-batch into micro-batches
// whose losses are scaled by 1 / gradient_accumulation, then one optimizer
// step. Metrics follow verl's aggregation: the loss keys verl accumulates as
// `+= value * loss_scale_factor` are summed over every micro-batch of every
// mini-batch and epoch; every other key is a mean over micro-batches, and
// grad_norm a mean over mini-batches.
import { createRng } from '@rl/service-kit';

/** How one update walks the batch (sizes in sequences). */
export interface EpochPlan {
  ppoEpochs: number;
  miniBatchSize: number;
  /** null: the whole mini-batch in one pass. */
  microBatchSize: number | null;
  shuffle: boolean;
  seed: number;
}

/** The model side of one update. */
export interface EpochTrainer<T> {
  /** Forward + backward of one micro-batch, its gradient scaled by `scale`; returns its (unscaled) metrics. */
  accumulate(micro: readonly T[], scale: number): Promise<Record<string, number>>;
  /** One optimizer step on the accumulated gradients. */
  step(): Promise<{ gradNorm: number; skipped: boolean }>;
}

/** Splits `xs` into consecutive chunks of `size` (the last may be smaller). */
export function chunks<T>(xs: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

/**
 * Runs the epochs; `summed` names the metric keys verl sums (actor/pg_loss and actor/kl_loss, or critic/vf_loss),
 * `gradNormKey` where each mini-batch's gradient norm goes.
 */
export async function runPpoEpochs<T>(
  batch: readonly T[],
  plan: EpochPlan,
  trainer: EpochTrainer<T>,
  summed: readonly string[],
  gradNormKey: string,
): Promise<Record<string, number>> {
  const rng = createRng(plan.seed);
  const sums = new Map<string, number>(summed.map((k) => [k, 0]));
  const lists = new Map<string, number[]>();
  const push = (k: string, v: number) => (lists.get(k) ?? lists.set(k, []).get(k)!).push(v);
  const order = batch.map((_, i) => i);
  for (let epoch = 0; epoch < plan.ppoEpochs; epoch++) {
    if (plan.shuffle) {
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(0, i);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
    }
    for (const mini of chunks(order, plan.miniBatchSize)) {
      const micro = chunks(mini, plan.microBatchSize ?? mini.length);
      // verl: gradient_accumulation = ppo_mini_batch_size // ppo_micro_batch_size_per_gpu.
      const scale = 1 / micro.length;
      for (const ids of micro) {
        const m = await trainer.accumulate(
          ids.map((i) => batch[i]!),
          scale,
        );
        for (const [k, v] of Object.entries(m)) {
          if (sums.has(k)) sums.set(k, sums.get(k)! + v * scale);
          else push(k, v);
        }
      }
      const s = await trainer.step();
      push(gradNormKey, s.gradNorm);
      push(`${gradNormKey.split('/')[0]}/update_skipped`, s.skipped ? 1 : 0);
    }
  }
  const out: Record<string, number> = Object.fromEntries(sums);
  for (const [k, vs] of lists) out[k] = vs.reduce((a, b) => a + b, 0) / vs.length;
  return out;
}
