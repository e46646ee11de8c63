// What the controller tells a policy worker at start (a JSON file whose path is
// in POLICY_WORKER_SPEC): model, tokenizer, optimizer and (for RL jobs) the loss, fixed per job.
import { Architecture, TokenizerConfig } from '@rl/policy';
import { z } from 'zod';
import { LossAggMode } from './losses/modes.ts';
import { ActorLossSchema } from './protocol.ts';

/** The loss settings fixed per job (the per-step ones travel with each update). */
export const WorkerLossSpec = ActorLossSchema.pick({
  clip_ratio_low: true,
  clip_ratio_high: true,
  clip_ratio_c: true,
  loss_agg_mode: true,
  entropy_coeff: true,
  use_kl_loss: true,
  kl_loss_coef: true,
  kl_loss_type: true,
  tau_pos: true,
  tau_neg: true,
  policy_loss: true,
}).extend({ loss_scale_factor: z.number().positive() });
/** Parsed {@link WorkerLossSpec}: what createPpoLoss compiles. */
export type WorkerLossSpec = z.infer<typeof WorkerLossSpec>;

/** Which engine runs a model: jax (embedded, no Python) or torch (rl_torch_engine child process); verl's strategy keys choose it. */
export const EngineSpec = z.object({
  kind: z.enum(['jax', 'torch']),
  /** Recompute layer activations in the backward pass (torch engine; verl enable_gradient_checkpointing). */
  gradient_checkpointing: z.boolean(),
  /** Tokens (rows x padded width) per forward pass inside the torch engine (verl ppo_max_token_len_per_gpu with use_dynamic_bsz); null: the engine's default. */
  max_tokens: z.number().int().positive().nullable().default(null),
  /** Processes of the torch engine (trainer.n_gpus_per_node): data parallel, gradients summed before each step. */
  world_size: z.number().int().positive().default(1),
  /** torch.compile the model where the torch engine runs on CUDA (verl actor.use_torch_compile). */
  compile: z.boolean().default(false),
});

/** The family's Linear modules of the decoder layers: what LoRA may target (the heads are not targets). */
export const LORA_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;

/** LoRA on the actor (verl actor_rollout_ref.model.lora_rank > 0): the base frozen, adapters trained; the reference policy is the base. */
export const LoraSpec = z.object({
  rank: z.number().int().positive(),
  alpha: z.number().positive(),
  /** Module names (or dot-separated name suffixes) of the decoder layers' Linear modules, or "all-linear". */
  target_modules: z.union([z.literal('all-linear'), z.array(z.string().min(1)).min(1)]),
});
export type LoraSpec = z.infer<typeof LoraSpec>;

export const WorkerSpec = z.object({
  job: z.string().min(1),
  model: z.object({
    /** The job's tokenizer (the model directory's own, or the job's `tokenizer` key); the worker saves it with every checkpoint. */
    tokenizer: TokenizerConfig,
    /** The shape of a randomly initialised model (unused with `path`). */
    architecture: Architecture,
    d_model: z.number().int().positive(),
    n_layers: z.number().int().positive(),
    n_heads: z.number().int().positive(),
    /** null: n_heads. */
    n_kv_heads: z.number().int().positive().nullable(),
    /** null: d_model / n_heads. */
    head_dim: z.number().int().positive().nullable(),
    d_ff: z.number().int().positive(),
    max_seq_len: z.number().int().positive(),
    seed: z.number().int().min(0),
    /** A Hugging Face model directory to start from (config.json and weights are read; the tokenizer is `tokenizer`); null: random initialisation. */
    path: z.string().nullable(),
  }),
  /** LoRA on the actor; absent: the whole model trains. */
  lora: LoraSpec.optional(),
  /** The actor's and the reference policy's engine. */
  engine: EngineSpec.default({ kind: 'jax', gradient_checkpointing: false, max_tokens: null, world_size: 1, compile: false }),
  optim: z.object({ lr: z.number().positive(), weight_decay: z.number().min(0), betas: z.tuple([z.number(), z.number()]), grad_clip: z.number().positive() }),
  /** The actor loss of an RL job (an SFT job has none). */
  loss: WorkerLossSpec.optional(),
  /** The critic of a GAE job (verl critic.*); absent otherwise. */
  critic: z
    .object({
      optim: z.object({
        lr: z.number().positive(),
        weight_decay: z.number().min(0),
        betas: z.tuple([z.number(), z.number()]),
        grad_clip: z.number().positive(),
      }),
      cliprange_value: z.number().min(0),
      loss_agg_mode: LossAggMode,
      loss_scale_factor: z.number().positive(),
      /** A Hugging Face model directory to build the critic from (a causal LM gets a new value head); null = the actor's initial weights. */
      path: z.string().nullable(),
      /** Seed of the value head's initialisation. */
      seed: z.number().int().min(0),
      /** The critic's engine (verl critic.strategy); absent: the actor's. */
      engine: EngineSpec.optional(),
    })
    .optional(),
  /**
   * JetStream object store bucket and object name the weights are published under, and what is published:
   * "full" weights (merged with LoRA; the generation service's embedded backend, INFERENCE_SYNC=sglang|vllm), or
   * the LoRA "adapter" alone (INFERENCE_SYNC=vllm-lora). Absent: full.
   */
  weights: z.object({ bucket: z.string().min(1), name: z.string().min(1), format: z.enum(['full', 'adapter']).optional() }),
});
export type WorkerSpec = z.infer<typeof WorkerSpec>;
