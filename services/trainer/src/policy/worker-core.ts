// The policy worker's domain: it owns the actor (weights + AdamW state), a
// frozen reference copy of the initial weights, and answers the protocol's
// verbs. With LoRA the actor is the frozen initial weights plus trained
// adapters, and the reference is the same weights with the adapters off.
// No NATS here: worker-main.ts wires these methods to subjects.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRng, AppError, ErrorCode } from '@rl/service-kit';
import {
  createRandomPolicy,
  createTokenizer,
  loadWeights,
  adapterConfigJson,
  saveModelDir,
  saveWeights,
  writeAdapterDir,
  type LoraAdapter,
  type PolicyLoss,
  type PolicySnapshot,
  type PolicyWeights,
  type TrainingEngine,
} from '@rl/policy';
import type { z } from 'zod';
import { AppliedOnce } from './applied-once.ts';
import { FINAL_MODEL_DIRS, checkpointLayout } from './checkpoint-layout.ts';
import { loadModel } from './load-model.ts';
import { lengthChunks, quarterWidth } from './length-chunks.ts';
import { CriticCore } from './critic-core.ts';
import { CLIP_COV_KEYS, createPpoLoss } from './losses/index.ts';
import { withDetachedOldLogprobs } from './on-policy-loss.ts';
import { runPpoEpochs } from './ppo-epochs.ts';
import type { GenerateReply, GenerateRequest, LogprobsReply, LogprobsRequest, SftStepReply, SftStepRequest, UpdateReply, UpdateRequest } from './protocol.ts';
import { SFT_LOSS } from './sft-loss.ts';
import { openLoraEngine, openScoringModel, openTrainingEngine, type EngineChoice, type LoraEngine, type ScoringModel } from './training-engines.ts';
import type { WorkerSpec } from './worker-spec.ts';

/** A request as its schema parsed it (defaults filled in): what a verb receives. */
type ParsedRequest<T extends z.ZodType> = z.output<T>;
/** A reply as its schema accepts it (defaults may be left out): what a verb returns; the trainer parses it on receipt. */
type ReplyBody<T extends z.ZodType> = z.input<T>;

/** Rows per chunk of the story signals' pass without r. */
const WITHOUT_CONTEXT_CHUNK_ROWS = 16;

/** Actor + reference + optimizer of one job. */
export class PolicyWorkerCore {
  readonly spec: WorkerSpec;
  #trainer: TrainingEngine;
  #ref: ScoringModel;
  #refWeights: PolicyWeights;
  #snapshot: PolicySnapshot | null = null;
  #loss: PolicyLoss | null = null;
  readonly #updates = new AppliedOnce<ReplyBody<typeof UpdateReply>>();
  readonly #sftSteps = new AppliedOnce<ReplyBody<typeof SftStepReply>>();
  #onPolicy: PolicyLoss | null = null;
  readonly #lora: LoraEngine | null;

  #critic: CriticCore | null;

  private constructor(
    spec: WorkerSpec,
    trainer: TrainingEngine,
    ref: ScoringModel,
    refWeights: PolicyWeights,
    critic: CriticCore | null,
    lora: LoraEngine | null,
  ) {
    this.spec = spec;
    this.#trainer = trainer;
    this.#ref = ref;
    this.#refWeights = refWeights;
    this.#critic = critic;
    this.#lora = lora;
  }

  /** A worker with fresh (seeded) or given initial weights; the reference model is those initial weights. */
  static async create(spec: WorkerSpec): Promise<PolicyWorkerCore> {
    const m = spec.model;
    let initial: PolicyWeights;
    if (m.path !== null) initial = await loadModel(m.path, m.tokenizer);
    else {
      const policy = await createRandomPolicy({
        config: {
          architecture: m.architecture,
          dModel: m.d_model,
          nLayers: m.n_layers,
          nHeads: m.n_heads,
          ...(m.n_kv_heads !== null && { nKvHeads: m.n_kv_heads }),
          ...(m.head_dim !== null && { headDim: m.head_dim }),
          dFF: m.d_ff,
          maxSeqLen: m.max_seq_len,
        },
        tokenizer: createTokenizer(spec.model.tokenizer).config,
        seed: m.seed,
        version: 'v0',
      });
      initial = await policy.exportWeights('v0');
      policy.dispose();
    }
    const critic = spec.critic === undefined ? null : await CriticCore.create(initial, spec.critic, m.tokenizer, criticEngine(spec));
    return PolicyWorkerCore.#build(spec, initial, initial, critic, null);
  }

  /**
   * `actor` trains (whole), or with LoRA `ref` (the base) stays frozen under adapters, fresh or read from
   * `adapterDir`; the reference policy is `ref`.
   */
  static async #build(
    spec: WorkerSpec,
    actor: PolicyWeights,
    ref: PolicyWeights,
    critic: CriticCore | null,
    adapterDir: string | null,
  ): Promise<PolicyWorkerCore> {
    const choice = actorEngine(spec);
    if (spec.weights.format === 'adapter' && spec.lora === undefined) {
      throw new AppError(ErrorCode.BadRequest, 'weights.format: "adapter" needs LoRA (actor_rollout_ref.model.lora_rank > 0)');
    }
    try {
      if (spec.lora !== undefined) {
        const lora = await openLoraEngine(ref, spec.optim, choice, { lora: spec.lora, seed: spec.model.seed, adapterDir, baseModel: spec.model.path });
        return new PolicyWorkerCore(spec, lora.trainer, lora.reference, ref, critic, lora);
      }
      const trainer = await openTrainingEngine(actor, spec.optim, choice);
      try {
        return new PolicyWorkerCore(spec, trainer, await openScoringModel(ref, choice), ref, critic, null);
      } catch (err) {
        trainer.dispose();
        throw err;
      }
    } catch (err) {
      critic?.dispose();
      throw err;
    }
  }

  /** The critic of a GAE job. */
  get critic(): CriticCore {
    if (this.#critic === null) throw new AppError(ErrorCode.BadRequest, 'this worker has no critic (the job does not use algorithm.adv_estimator: gae)');
    return this.#critic;
  }

  /** Why one of the worker's engines can no longer be used (an engine process died); null while they serve. */
  get engineFailure(): Error | null {
    return this.#trainer.failed ?? this.#ref.failed ?? this.#critic?.engineFailure ?? null;
  }

  /** `v<updates>`: changes with every applied update. */
  get version(): string {
    return `v${this.#trainer.updates}`;
  }

  get trainer(): TrainingEngine {
    return this.#trainer;
  }

  /** The job's actor loss: one object for the whole job, so the policy library compiles it once. */
  get loss(): PolicyLoss {
    if (this.spec.loss === undefined) throw new AppError(ErrorCode.BadRequest, 'this worker has no actor loss (an SFT job): update is not available');
    this.#loss ??= createPpoLoss(this.spec.loss);
    return this.#loss;
  }

  /** The current actor as a policy that generates (the engine's snapshot: an embedded copy, or the torch child itself), cached until the next update. */
  async actor(): Promise<PolicySnapshot> {
    if (this.#snapshot === null || this.#snapshot.version !== this.version) {
      const next = await this.#trainer.snapshot(this.version);
      this.#snapshot?.dispose();
      this.#snapshot = next;
    }
    return this.#snapshot;
  }

  async generate(req: ParsedRequest<typeof GenerateRequest>, signal?: AbortSignal): Promise<ReplyBody<typeof GenerateReply>> {
    const policy = await this.actor();
    const s = req.sampling;
    const gens = await policy.generate(
      req.prompts,
      {
        temperature: s.temperature,
        topK: s.top_k,
        topP: s.top_p,
        maxTokens: s.max_tokens,
        ...(s.seed !== undefined && { seed: s.seed }),
      },
      signal,
    );
    return { version: policy.version, generations: gens.map((g) => ({ token_ids: g.tokenIds, logprobs: g.logprobs, finish_reason: g.finishReason })) };
  }

  async logprobs(req: ParsedRequest<typeof LogprobsRequest>): Promise<ReplyBody<typeof LogprobsReply>> {
    const model = req.model === 'ref' ? this.#ref : this.#trainer;
    const scores = await model.score(req.pairs, { promptWidth: req.prompt_width, responseWidth: req.response_width });
    return {
      logprobs: scores.map((s) => Array.from(s.logprobs)),
      ...(req.entropy && { entropies: scores.map((s) => Array.from(s.entropy)) }),
      ...(req.without_context !== undefined && (await this.#withoutContext(model, req))),
    };
  }

  /** The story signals' second pass: each listed response after its prompt without r (no entropies: the reward takes them from the pass with r). */
  async #withoutContext(
    model: ScoringModel,
    req: ParsedRequest<typeof LogprobsRequest>,
  ): Promise<Pick<ReplyBody<typeof LogprobsReply>, 'logprobs_without_context' | 'without_context_compute_s'>> {
    const entries = req.without_context ?? [];
    const pairs = entries.map(({ index, prompt }, i) => {
      const pair = req.pairs[index];
      if (pair === undefined) throw new AppError(ErrorCode.BadRequest, `without_context[${i}].index: ${index} is not a pair (there are ${req.pairs.length})`);
      return { prompt, response: pair.response };
    });
    const started = performance.now();
    // Padded per chunk of similar prompt lengths to one of four widths, not all to the job's
    // longest: this pass pays for the prompts without r about as they are. Every chunk has the
    // same rows (the first pair repeated), so the job meets at most four shapes.
    const lengths = pairs.map((p) => p.prompt.length);
    const maxWidth = req.without_context_prompt_width ?? Math.max(0, ...lengths);
    const logprobs: number[][] = new Array(pairs.length);
    for (const chunk of lengthChunks(lengths, WITHOUT_CONTEXT_CHUNK_ROWS)) {
      const rows = chunk.map((i) => pairs[i]!);
      while (rows.length < WITHOUT_CONTEXT_CHUNK_ROWS) rows.push(rows[0]!);
      const scored = await model.score(rows, { promptWidth: quarterWidth(lengths[chunk[0]!]!, maxWidth), responseWidth: req.response_width });
      chunk.forEach((i, k) => (logprobs[i] = Array.from(scored[k]!.logprobs)));
    }
    return { logprobs_without_context: logprobs, without_context_compute_s: (performance.now() - started) / 1000 };
  }

  /** verl update_policy: PPO epochs over mini-batches (shuffled only with `shuffle`), micro-batches accumulated, one AdamW step per mini-batch. */
  update(req: ParsedRequest<typeof UpdateRequest>): Promise<ReplyBody<typeof UpdateReply>> {
    return this.#updates.run(req.step, () => this.#applyUpdate(req));
  }

  /** The update itself, applied once per step by {@link update} (applied-once.ts: a repeated step gets its stored reply). */
  async #applyUpdate(req: ParsedRequest<typeof UpdateRequest>): Promise<ReplyBody<typeof UpdateReply>> {
    const l = req.loss;
    const widths = { promptWidth: req.prompt_width, responseWidth: req.response_width };
    // verl dp_actor: with one mini-batch and one epoch the update is on-policy and the old log-probs are the current ones, detached.
    const onPolicy = l.ppo_epochs === 1 && req.batch.length <= l.ppo_mini_batch_size;
    const loss = onPolicy ? this.#onPolicyLoss() : this.loss;
    // clip_cov picks tokens by uniform keys: drawn from the request's seed, on a stream apart from the shuffle's.
    const keyRng = createRng(req.seed ^ 0x9e3779b9);
    const keys = l.policy_loss.loss_mode === 'clip_cov' ? req.batch.map((x) => x.advantages.map(() => keyRng.next())) : null;
    const rows = req.batch.map((x, i) => ({ x, keys: keys?.[i] }));
    const metrics = await runPpoEpochs(
      rows,
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
                pairs: micro.map(({ x }) => ({ prompt: x.prompt, response: x.response })),
                inputs: {
                  advantages: micro.map(({ x }) => x.advantages),
                  old_logprobs: micro.map(({ x }) => x.old_logprobs),
                  response_mask: micro.map(({ x }) => x.response_mask),
                  ref_logprobs: micro.map(({ x }) => x.ref_logprobs ?? x.old_logprobs),
                  ...(keys !== null && { [CLIP_COV_KEYS]: micro.map((r) => r.keys!) }),
                },
              },
              loss,
              scale,
              widths,
            )
          ).metrics,
        step: () => this.#trainer.applyGradients({ lr: l.lr }),
      },
      ['actor/pg_loss', 'actor/kl_loss'],
      'actor/grad_norm',
    );
    if (!l.use_kl_loss) delete metrics['actor/kl_loss'];
    return { version: this.version, metrics: { ...metrics, 'actor/lr': l.lr } };
  }

  #onPolicyLoss(): PolicyLoss {
    this.#onPolicy ??= withDetachedOldLogprobs(this.loss);
    return this.#onPolicy;
  }

  /** One SFT optimizer step: each micro-batch adds its token-mean NLL's gradient / n, then AdamW at `lr`. */
  sftStep(req: ParsedRequest<typeof SftStepRequest>): Promise<ReplyBody<typeof SftStepReply>> {
    return this.#sftSteps.run(req.step, () => this.#applySftStep(req));
  }

  /** The SFT step itself, applied once per step by {@link sftStep} (applied-once.ts: a repeated step gets its stored reply). */
  async #applySftStep(req: ParsedRequest<typeof SftStepRequest>): Promise<ReplyBody<typeof SftStepReply>> {
    const n = req.micro_batches.length;
    const widths = { promptWidth: req.prompt_width, responseWidth: req.response_width };
    let loss = 0;
    for (const mb of req.micro_batches) {
      const res = await this.#trainer.accumulate(
        {
          pairs: mb.map((x) => ({ prompt: x.prompt, response: x.response })),
          inputs: { loss_mask: mb.map((x) => x.loss_mask) },
        },
        SFT_LOSS,
        1 / n,
        widths,
      );
      loss += res.loss / n;
    }
    const step = await this.#trainer.applyGradients({ lr: req.lr });
    return { version: this.version, loss, grad_norm: step.gradNorm, skipped: step.skipped };
  }

  /** The actor's current weights (for publishing); with LoRA, merged. */
  exportWeights(): Promise<PolicyWeights> {
    return this.#trainer.exportWeights(this.version);
  }

  /** The actor's LoRA adapter (PEFT names and settings); a job without LoRA has none. */
  exportAdapter(): Promise<LoraAdapter> {
    if (this.#lora === null) throw new AppError(ErrorCode.BadRequest, 'this worker trains no LoRA adapter (actor_rollout_ref.model.lora_rank is 0)');
    return this.#lora.exportAdapter();
  }

  /** The adapter as an adapter object publishes it (adapter_config.json's text and the tensors). */
  async adapterObject(): Promise<{ adapterConfig: string; tensors: LoraAdapter['tensors'] }> {
    const adapter = await this.exportAdapter();
    return { adapterConfig: adapterConfigJson(adapter.settings), tensors: adapter.tensors };
  }

  /**
   * Writes a checkpoint into the step directory `dir` (checkpoint-layout.ts):
   * the actor as a Hugging Face directory (F32, so a resume is exact; merged
   * with LoRA), its optimizer state and the frozen reference (with LoRA the
   * base, and the adapter as a PEFT directory), and the critic's.
   */
  async saveCheckpoint(dir: string): Promise<void> {
    const at = checkpointLayout(dir).actor;
    await mkdir(at.dir, { recursive: true });
    await saveModelDir(at.hf, await this.exportWeights(), { dtype: 'F32' });
    await saveWeights(at.ref, this.#refWeights);
    if (this.#lora !== null) await writeAdapterDir(at.loraAdapter, await this.#lora.exportAdapter());
    await writeFile(at.optimizer, await this.#trainer.exportOptimizerState());
    await this.#critic?.save(dir, this.spec.model.tokenizer);
  }

  /** Writes the job's final models into the job directory `jobDir` (checkpoint-layout.ts FINAL_MODEL_DIRS); returns their paths. */
  async saveFinalModels(jobDir: string): Promise<string[]> {
    const actor = join(jobDir, FINAL_MODEL_DIRS.actor);
    await saveModelDir(actor, await this.exportWeights(), { dtype: 'F32' });
    const saved = [actor];
    if (this.#lora !== null) {
      const adapter = join(jobDir, FINAL_MODEL_DIRS.loraAdapter);
      await writeAdapterDir(adapter, await this.#lora.exportAdapter());
      saved.push(adapter);
    }
    if (this.#critic === null) return saved;
    const critic = join(jobDir, FINAL_MODEL_DIRS.critic);
    await this.#critic.saveModel(critic, this.spec.model.tokenizer);
    return [...saved, critic];
  }

  /** A worker restored from {@link saveCheckpoint}. */
  static async fromCheckpoint(spec: WorkerSpec, dir: string): Promise<PolicyWorkerCore> {
    const at = checkpointLayout(dir).actor;
    const critic = spec.critic === undefined ? null : await CriticCore.load(dir, spec.critic, spec.model.tokenizer, criticEngine(spec));
    const ref = await loadWeights(at.ref);
    // With LoRA the base is the reference and the adapter goes back on it (the merged huggingface/ is not read).
    const actor = spec.lora === undefined ? await loadModel(at.hf, spec.model.tokenizer) : ref;
    const core = await PolicyWorkerCore.#build(spec, actor, ref, critic, spec.lora === undefined ? null : at.loraAdapter);
    await core.#trainer.importOptimizerState(new Uint8Array(await readFile(at.optimizer)));
    return core;
  }

  dispose(): void {
    this.#snapshot?.dispose();
    this.#ref.dispose();
    this.#trainer.dispose();
    this.#critic?.dispose();
  }
}

/** The actor's (and reference's) engine. */
function actorEngine(spec: WorkerSpec): EngineChoice {
  return {
    kind: spec.engine.kind,
    gradientCheckpointing: spec.engine.gradient_checkpointing,
    maxTokens: spec.engine.max_tokens,
    worldSize: spec.engine.world_size,
    compile: spec.engine.compile,
  };
}

/** The critic's engine (verl critic.strategy). */
function criticEngine(spec: WorkerSpec): EngineChoice {
  const e = spec.critic?.engine ?? spec.engine;
  return { kind: e.kind, gradientCheckpointing: e.gradient_checkpointing, maxTokens: e.max_tokens, worldSize: e.world_size, compile: e.compile };
}
