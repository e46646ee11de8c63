// The policy worker's domain: it owns the actor (weights + AdamW state), a
// frozen reference copy of the initial weights, and answers the protocol's
// verbs. No NATS here: worker-main.ts wires these methods to subjects.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRng } from '@rl/shared';
import { AppError, ErrorCode } from '@rl/shared/errors';
import {
  PolicyTrainer, createRandomPolicy, createTokenizer, loadWeights, policyFromWeights, saveWeights,
  type EmbeddedPolicy, type PolicyLoss, type PolicyWeights,
} from '@rl/shared/policy';
import type { z } from 'zod';
import { createPpoLoss } from './losses/index.ts';
import type { GenerateReply, GenerateRequest, LogprobsReply, LogprobsRequest, SftStepReply, SftStepRequest, UpdateReply, UpdateRequest } from './protocol.ts';
import { SFT_LOSS } from './sft-loss.ts';
import type { WorkerSpec } from './worker-spec.ts';

type In<T extends z.ZodType> = z.output<T>;
type Out<T extends z.ZodType> = z.input<T>;

/** Files of a policy checkpoint directory. */
export const CHECKPOINT_FILES = { actor: 'actor.safetensors', ref: 'ref.safetensors', optimizer: 'optimizer.bin' } as const;

/** Actor + reference + optimizer of one job. */
export class PolicyWorkerCore {
  readonly spec: WorkerSpec;
  #trainer: PolicyTrainer;
  #ref: EmbeddedPolicy;
  #refWeights: PolicyWeights;
  #snapshot: EmbeddedPolicy | null = null;
  #loss: PolicyLoss | null = null;

  private constructor(spec: WorkerSpec, trainer: PolicyTrainer, ref: EmbeddedPolicy, refWeights: PolicyWeights) {
    this.spec = spec;
    this.#trainer = trainer;
    this.#ref = ref;
    this.#refWeights = refWeights;
  }

  /** A worker with fresh (seeded) or given initial weights; the reference model is those initial weights. */
  static async create(spec: WorkerSpec): Promise<PolicyWorkerCore> {
    const m = spec.model;
    let initial: PolicyWeights;
    if (m.path !== null) initial = await loadWeights(m.path);
    else {
      const policy = await createRandomPolicy({
        config: { dModel: m.d_model, nLayers: m.n_layers, nHeads: m.n_heads, dFF: m.d_ff, maxSeqLen: m.max_seq_len },
        tokenizer: createTokenizer(spec.model.tokenizer).config,
        seed: m.seed,
        version: 'v0',
      });
      initial = await policy.exportWeights('v0');
      policy.dispose();
    }
    return PolicyWorkerCore.#build(spec, initial, initial);
  }

  static async #build(spec: WorkerSpec, actor: PolicyWeights, ref: PolicyWeights): Promise<PolicyWorkerCore> {
    const o = spec.optim;
    const trainer = await PolicyTrainer.create(actor, { lr: o.lr, betas: o.betas, weightDecay: o.weight_decay, maxGradNorm: o.grad_clip });
    return new PolicyWorkerCore(spec, trainer, await policyFromWeights(ref), ref);
  }

  /** `v<updates>`: changes with every applied update. */
  get version(): string {
    return `v${this.#trainer.updates}`;
  }

  get trainer(): PolicyTrainer {
    return this.#trainer;
  }

  /** The job's actor loss: one object for the whole job, so the policy library compiles it once. */
  get loss(): PolicyLoss {
    if (this.spec.loss === undefined) throw new AppError(ErrorCode.BadRequest, 'this worker has no actor loss (an SFT job): update is not available', { status: 400 });
    this.#loss ??= createPpoLoss(this.spec.loss);
    return this.#loss;
  }

  /** An immutable copy of the current actor (cached until the next update). */
  actor(): EmbeddedPolicy {
    if (this.#snapshot === null || this.#snapshot.version !== this.version) {
      this.#snapshot?.dispose();
      this.#snapshot = this.#trainer.snapshot(this.version);
    }
    return this.#snapshot;
  }

  async generate(req: In<typeof GenerateRequest>, signal?: AbortSignal): Promise<Out<typeof GenerateReply>> {
    const policy = this.actor();
    const s = req.sampling;
    const gens = await policy.generate(req.prompts, {
      temperature: s.temperature, topK: s.top_k, topP: s.top_p, maxTokens: s.max_tokens, ...(s.seed !== undefined && { seed: s.seed }),
    }, signal);
    return { version: policy.version, generations: gens.map((g) => ({ token_ids: g.tokenIds, logprobs: g.logprobs, finish_reason: g.finishReason })) };
  }

  async logprobs(req: In<typeof LogprobsRequest>): Promise<Out<typeof LogprobsReply>> {
    const model = req.model === 'ref' ? this.#ref : this.actor();
    const scores = await model.score(req.pairs, { promptWidth: req.prompt_width, responseWidth: req.response_width });
    return {
      logprobs: scores.map((s) => Array.from(s.logprobs)),
      ...(req.entropy && { entropies: scores.map((s) => Array.from(s.entropy)) }),
    };
  }

  /** PPO epochs over seeded-shuffled mini-batches (sizes in trajectories), one optimizer step per mini-batch. */
  async update(req: In<typeof UpdateRequest>): Promise<Out<typeof UpdateReply>> {
    const rng = createRng(req.seed);
    const sums = new Map<string, number>();
    let count = 0;
    const add = (k: string, v: number) => sums.set(k, (sums.get(k) ?? 0) + v);
    const order = req.batch.map((_, i) => i);
    for (let epoch = 0; epoch < req.loss.ppo_epochs; epoch++) {
      // Fisher-Yates with the request's seeded stream: the same update request shuffles the same way.
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(0, i);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (let start = 0; start < order.length; start += req.loss.ppo_mini_batch_size) {
        const mb = order.slice(start, start + req.loss.ppo_mini_batch_size).map((i) => req.batch[i]!);
        const res = await this.#trainer.accumulate({
          pairs: mb.map((x) => ({ prompt: x.prompt, response: x.response })),
          inputs: {
            advantages: mb.map((x) => x.advantages),
            old_logprobs: mb.map((x) => x.old_logprobs),
            response_mask: mb.map((x) => x.response_mask),
            ref_logprobs: mb.map((x) => x.ref_logprobs ?? x.old_logprobs),
          },
        }, this.loss, 1, { promptWidth: req.prompt_width, responseWidth: req.response_width });
        const step = await this.#trainer.applyGradients({ lr: req.loss.lr });
        for (const [k, v] of Object.entries(res.metrics)) add(k, v);
        add('actor/grad_norm', step.gradNorm);
        add('actor/update_skipped', step.skipped ? 1 : 0);
        count++;
      }
    }
    const metrics: Record<string, number> = { 'actor/lr': req.loss.lr };
    for (const [k, v] of sums) metrics[k] = v / Math.max(1, count);
    return { version: this.version, metrics };
  }

  /** One SFT optimizer step: each micro-batch adds its token-mean NLL's gradient / n, then AdamW at `lr`. */
  async sftStep(req: In<typeof SftStepRequest>): Promise<Out<typeof SftStepReply>> {
    const n = req.micro_batches.length;
    const widths = { promptWidth: req.prompt_width, responseWidth: req.response_width };
    let loss = 0;
    for (const mb of req.micro_batches) {
      const res = await this.#trainer.accumulate({
        pairs: mb.map((x) => ({ prompt: x.prompt, response: x.response })),
        inputs: { loss_mask: mb.map((x) => x.loss_mask) },
      }, SFT_LOSS, 1 / n, widths);
      loss += res.loss / n;
    }
    const step = await this.#trainer.applyGradients({ lr: req.lr });
    return { version: this.version, loss, grad_norm: step.gradNorm, skipped: step.skipped };
  }

  /** The actor's current weights (for publishing). */
  exportWeights(): Promise<PolicyWeights> {
    return this.#trainer.exportWeights(this.version);
  }

  /** Writes actor, reference and optimizer state to `dir`. */
  async saveCheckpoint(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await saveWeights(join(dir, CHECKPOINT_FILES.actor), await this.exportWeights());
    await saveWeights(join(dir, CHECKPOINT_FILES.ref), this.#refWeights);
    await writeFile(join(dir, CHECKPOINT_FILES.optimizer), await this.#trainer.exportOptimizerState());
  }

  /** A worker restored from {@link saveCheckpoint}. */
  static async fromCheckpoint(spec: WorkerSpec, dir: string): Promise<PolicyWorkerCore> {
    const core = await PolicyWorkerCore.#build(spec, await loadWeights(join(dir, CHECKPOINT_FILES.actor)), await loadWeights(join(dir, CHECKPOINT_FILES.ref)));
    core.#trainer.importOptimizerState(new Uint8Array(await readFile(join(dir, CHECKPOINT_FILES.optimizer))));
    return core;
  }

  dispose(): void {
    this.#snapshot?.dispose();
    this.#ref.dispose();
    this.#trainer.dispose();
  }
}
