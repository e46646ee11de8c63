// The critic of a GAE job (verl's critic worker): a copy of the initial
// policy (or critic.model.path) with a scalar value head, its own AdamW, and
// verl's update_critic loop. It lives in the policy worker process; a GPU
// deployment implements the same `values` / `update_critic` subjects.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PolicyTrainer, loadWeights, saveWeights, withValueHead, type PolicyLoss, type PolicyWeights } from '@rl/policy';
import type { z } from 'zod';
import { AppliedOnce } from './applied-once.ts';
import { createValueLoss } from './losses/index.ts';
import { runPpoEpochs } from './ppo-epochs.ts';
import type { UpdateCriticReply, UpdateCriticRequest, ValuesReply, ValuesRequest } from './protocol.ts';
import type { WorkerSpec } from './worker-spec.ts';

/** Files the critic adds to a policy checkpoint directory. */
export const CRITIC_FILES = { weights: 'critic.safetensors', optimizer: 'critic_optimizer.bin' } as const;

type CriticSpec = NonNullable<WorkerSpec['critic']>;

/** Value model + optimizer of one job. */
export class CriticCore {
  readonly #trainer: PolicyTrainer;
  readonly #loss: PolicyLoss;
  readonly #updates = new AppliedOnce<z.input<typeof UpdateCriticReply>>();

  private constructor(trainer: PolicyTrainer, spec: CriticSpec) {
    this.#trainer = trainer;
    // One loss object per job, so the policy library compiles it once.
    this.#loss = createValueLoss({ cliprangeValue: spec.cliprange_value, lossAggMode: spec.loss_agg_mode, lossScaleFactor: spec.loss_scale_factor });
  }

  static async #start(weights: PolicyWeights, spec: CriticSpec): Promise<CriticCore> {
    const o = spec.optim;
    const trainer = await PolicyTrainer.create(weights, { lr: o.lr, betas: o.betas, weightDecay: o.weight_decay, maxGradNorm: o.grad_clip });
    return new CriticCore(trainer, spec);
  }

  /** A fresh critic: `initial` (the actor's starting weights, or critic.model.path's) with a seeded value head. */
  static async create(initial: PolicyWeights, spec: CriticSpec): Promise<CriticCore> {
    const base = spec.path === null ? initial : await loadWeights(spec.path);
    return CriticCore.#start(base.config.valueHead ? base : withValueHead(base, spec.seed), spec);
  }

  /** The critic saved by {@link save} into `dir`. */
  static async load(dir: string, spec: CriticSpec): Promise<CriticCore> {
    const core = await CriticCore.#start(await loadWeights(join(dir, CRITIC_FILES.weights)), spec);
    core.#trainer.importOptimizerState(new Uint8Array(await readFile(join(dir, CRITIC_FILES.optimizer))));
    return core;
  }

  /** Updates applied so far. */
  get updates(): number {
    return this.#trainer.updates;
  }

  /** verl compute_values: the value of the state before each response token. */
  async values(req: z.output<typeof ValuesRequest>): Promise<z.input<typeof ValuesReply>> {
    const snapshot = this.#trainer.snapshot(`critic-v${this.updates}`);
    try {
      const v = await snapshot.values(req.pairs, { promptWidth: req.prompt_width, responseWidth: req.response_width });
      return { values: v.map((row) => Array.from(row)) };
    } finally {
      snapshot.dispose();
    }
  }

  /** verl dp_critic.update_critic: PPO epochs over mini-batches of the clipped value loss. */
  update(req: z.output<typeof UpdateCriticRequest>): Promise<z.input<typeof UpdateCriticReply>> {
    return this.#updates.run(req.step, () => this.#applyUpdate(req));
  }

  /** The critic update itself, applied once per step by {@link update} (applied-once.ts: a repeated step gets its stored reply). */
  async #applyUpdate(req: z.output<typeof UpdateCriticRequest>): Promise<z.input<typeof UpdateCriticReply>> {
    const l = req.loss;
    const widths = { promptWidth: req.prompt_width, responseWidth: req.response_width };
    const metrics = await runPpoEpochs(
      req.batch,
      {
        ppoEpochs: l.ppo_epochs,
        miniBatchSize: l.ppo_mini_batch_size,
        microBatchSize: l.ppo_micro_batch_size,
        shuffle: l.shuffle,
        seed: l.data_loader_seed,
      },
      {
        accumulate: async (micro, scale) =>
          (
            await this.#trainer.accumulate(
              {
                pairs: micro.map((x) => ({ prompt: x.prompt, response: x.response })),
                inputs: {
                  old_values: micro.map((x) => x.values),
                  returns: micro.map((x) => x.returns),
                  response_mask: micro.map((x) => x.response_mask),
                },
              },
              this.#loss,
              scale,
              widths,
            )
          ).metrics,
        step: () => this.#trainer.applyGradients({ lr: l.lr }),
      },
      ['critic/vf_loss'],
      'critic/grad_norm',
    );
    return { metrics: { ...metrics, 'critic/lr': l.lr } };
  }

  /** Writes the critic's weights and optimizer state into a checkpoint directory. */
  async save(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await saveWeights(join(dir, CRITIC_FILES.weights), await this.#trainer.exportWeights(`critic-v${this.updates}`));
    await writeFile(join(dir, CRITIC_FILES.optimizer), await this.#trainer.exportOptimizerState());
  }

  dispose(): void {
    this.#trainer.dispose();
  }
}
