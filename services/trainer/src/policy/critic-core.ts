// The critic of a GAE job (verl's critic worker): a copy of the initial
// policy (or critic.model.path) with a scalar value head, its own AdamW, and
// verl's update_critic loop. It lives in the policy worker process; a GPU
// deployment implements the same `values` / `update_critic` subjects.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { parseModelConfig, saveModelDir, withValueHead, type PolicyLoss, type PolicyWeights, type TokenizerConfig, type TrainingEngine } from '@rl/policy';
import type { z } from 'zod';
import { AppliedOnce } from './applied-once.ts';
import { checkpointLayout } from './checkpoint-layout.ts';
import { createValueLoss } from './losses/index.ts';
import { runPpoEpochs } from './ppo-epochs.ts';
import type { UpdateCriticReply, UpdateCriticRequest, ValuesReply, ValuesRequest } from './protocol.ts';
import { loadModel } from './load-model.ts';
import { openTrainingEngine, type EngineChoice } from './training-engines.ts';
import type { WorkerSpec } from './worker-spec.ts';

type CriticSpec = NonNullable<WorkerSpec['critic']>;

/**
 * A value model from a causal LM: a seeded one-label `score` head, and no
 * `lm_head` (transformers' ...ForTokenClassification has none; the values
 * never read it), so an untied model drops it and reads as tied.
 */
function valueModel(lm: PolicyWeights, seed: number): PolicyWeights {
  if (lm.config.tieEmbeddings) return withValueHead(lm, seed);
  const { 'lm_head.weight': _unused, ...params } = lm.params;
  return withValueHead({ ...lm, config: parseModelConfig({ ...lm.config, tieEmbeddings: true }), params }, seed);
}

/** Value model + optimizer of one job. */
export class CriticCore {
  readonly #trainer: TrainingEngine;
  readonly #loss: PolicyLoss;
  readonly #updates = new AppliedOnce<z.input<typeof UpdateCriticReply>>();

  private constructor(trainer: TrainingEngine, spec: CriticSpec) {
    this.#trainer = trainer;
    // One loss object per job, so the policy library compiles it once.
    this.#loss = createValueLoss({ cliprangeValue: spec.cliprange_value, lossAggMode: spec.loss_agg_mode, lossScaleFactor: spec.loss_scale_factor });
  }

  static async #start(weights: PolicyWeights, spec: CriticSpec, engine: EngineChoice): Promise<CriticCore> {
    return new CriticCore(await openTrainingEngine(weights, spec.optim, engine), spec);
  }

  /**
   * A fresh critic: `initial` (the actor's starting weights, or critic.model.path's
   * directory) with a seeded value head, unless the directory is a critic already.
   */
  static async create(initial: PolicyWeights, spec: CriticSpec, tokenizer: TokenizerConfig, engine: EngineChoice): Promise<CriticCore> {
    const base = spec.path === null ? initial : await loadModel(spec.path, tokenizer);
    return CriticCore.#start(base.config.valueHead ? base : valueModel(base, spec.seed), spec, engine);
  }

  /** The critic saved by {@link save} into the step directory `dir`. */
  static async load(dir: string, spec: CriticSpec, tokenizer: TokenizerConfig, engine: EngineChoice): Promise<CriticCore> {
    const at = checkpointLayout(dir).critic;
    const core = await CriticCore.#start(await loadModel(at.hf, tokenizer), spec, engine);
    await core.#trainer.importOptimizerState(new Uint8Array(await readFile(at.optimizer)));
    return core;
  }

  /** Updates applied so far. */
  get updates(): number {
    return this.#trainer.updates;
  }

  /** Why the critic's engine can no longer be used; null while it serves. */
  get engineFailure(): Error | null {
    return this.#trainer.failed ?? null;
  }

  /** verl compute_values: the value of the state before each response token. */
  async values(req: z.output<typeof ValuesRequest>): Promise<z.input<typeof ValuesReply>> {
    const v = await this.#trainer.values(req.pairs, { promptWidth: req.prompt_width, responseWidth: req.response_width });
    return { values: v.map((row) => Array.from(row)) };
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

  /**
   * Writes the critic into the step directory `dir`: a Hugging Face
   * ...ForTokenClassification directory (one label, the `score` head; F32)
   * with the job's tokenizer, and its optimizer state beside it.
   */
  async save(dir: string, tokenizer: TokenizerConfig): Promise<void> {
    const at = checkpointLayout(dir).critic;
    await mkdir(at.dir, { recursive: true });
    await this.saveModel(at.hf, tokenizer);
    await writeFile(at.optimizer, await this.#trainer.exportOptimizerState());
  }

  /** Writes the critic alone as a Hugging Face directory at `dir`. */
  async saveModel(dir: string, tokenizer: TokenizerConfig): Promise<void> {
    await saveModelDir(dir, { ...(await this.#trainer.exportWeights(`critic-v${this.updates}`)), tokenizer }, { dtype: 'F32' });
  }

  dispose(): void {
    this.#trainer.dispose();
  }
}
