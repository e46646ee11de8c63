import { Architecture } from '@rl/policy';
import { z } from 'zod';
import { KlPenaltyKind } from '../core/algos/index.ts';
import { LossAggMode } from '../policy/losses/modes.ts';
import { LORA_MODULES } from '../policy/worker-spec.ts';
import {
  EXPECTED,
  between,
  bool,
  finite,
  intOrOff,
  nonNegative,
  nonNegativeInt,
  oneOf,
  positive,
  positiveInt,
  klEstimator,
  text,
  tokenizerKey,
} from './fields.ts';
import { ignored } from './compat-keys.ts';
import { PolicyLossSection, SapoTemperatureFields } from './policy-loss-config.ts';
import { strategy } from './strategy.ts';

// verl rejects "full" at run time (NotImplementedError); we reject it when the config is read.

/** Sampling knobs shared by training and validation rollouts (verl rollout / SamplingConfig). */
const sampling = (d: { temperature: number; n: number; do_sample: boolean }) => ({
  /** Softmax temperature; 0 = greedy. */
  temperature: nonNegative().default(d.temperature),
  /** Nucleus sampling mass; 1 = off. @default 1 */
  top_p: between(0, 1)
    .refine((v) => v > 0, { error: 'expected a number in (0, 1]' })
    .default(1),
  /** Top-k cut-off; -1 = off. @default -1 */
  top_k: intOrOff().default(-1),
  /** Responses per prompt (GRPO/RLOO group size). */
  n: positiveInt().default(d.n),
  /** false = greedy decoding regardless of temperature. */
  do_sample: bool().default(d.do_sample),
});

/** `actor_rollout_ref.rollout.*`. */
export const RolloutSamplingConfig = z.strictObject({
  ...sampling({ temperature: 1, n: 1, do_sample: true }),
  /** Accepted and ignored (compat-keys.ts): the inference engine. */
  name: ignored(text()),
  /** Accepted and ignored (compat-keys.ts). */
  gpu_memory_utilization: ignored(between(0, 1)),
  /** Accepted and ignored (compat-keys.ts). */
  tensor_model_parallel_size: ignored(positiveInt()),
  /** Accepted and ignored (compat-keys.ts). */
  log_prob_micro_batch_size_per_gpu: ignored(positiveInt().nullable()),
  /** Validation sampling (verl: greedy, one response). */
  val_kwargs: z.strictObject(sampling({ temperature: 0, n: 1, do_sample: false })).prefault({}),
});

/** AdamW settings (verl FSDPOptimizerConfig subset). */
export const OptimConfig = (lr: number) =>
  z.strictObject({
    /** Learning rate. */
    lr: positive().default(lr),
    /** Decoupled weight decay. @default 0.01 */
    weight_decay: nonNegative().default(0.01),
    /** Adam (beta1, beta2). @default [0.9, 0.999] */
    betas: z.tuple([between(0, 0.999999), between(0, 0.999999)], { error: 'expected a list of two numbers in [0, 1)' }).default([0.9, 0.999]),
    /** Learning-rate schedule over the job's training steps: "constant" or "cosine" (after the warmup). @default "constant" */
    lr_scheduler_type: oneOf(['constant', 'cosine']).default('constant'),
    /** Warmup steps, linear from 0; -1 = lr_warmup_steps_ratio x the job's steps. @default -1 */
    lr_warmup_steps: intOrOff().default(-1),
    /** Share of the job's steps spent warming up when lr_warmup_steps is -1. @default 0 */
    lr_warmup_steps_ratio: between(0, 1).default(0),
    /** cosine: the lowest rate, as a share of lr. @default 0 */
    min_lr_ratio: between(0, 1).default(0),
    /** cosine: waves over the job (0.5 = from lr down once). @default 0.5 */
    num_cycles: positive().default(0.5),
  });

/** `actor_rollout_ref.actor.*` (verl dp_actor / PolicyLossConfig subset). */
export const ActorConfig = z.strictObject({
  /** The engine of the actor and the reference policy: "embedded" (jax-js in the worker, no Python) or verl's "fsdp" / "fsdp2" (the PyTorch engine, a child process; CUDA when torch sees a GPU). @default "embedded" */
  strategy: strategy().default('embedded'),
  /** Actor optimizer. verl lr: 1e-6 (fine-tuning a pretrained model). */
  optim: OptimConfig(1e-6).prefault({}),
  /** Prompts per optimizer step (times `rollout.n` sequences); null = data.train_batch_size. verl: 256. @default null */
  ppo_mini_batch_size: positiveInt().nullable().default(null),
  /** Sequences per forward/backward pass (gradient accumulation); null = the whole mini-batch. @default null */
  ppo_micro_batch_size_per_gpu: positiveInt().nullable().default(null),
  /** Cut forward/backward passes by tokens instead of sequences: each mini-batch is one loss, computed in passes of at most ppo_max_token_len_per_gpu tokens (the PyTorch engine; ppo_micro_batch_size_per_gpu is then unused). @default false */
  use_dynamic_bsz: bool().default(false),
  /** Tokens (sequences x padded length) per forward/backward pass with use_dynamic_bsz. @default 16384 */
  ppo_max_token_len_per_gpu: positiveInt().default(16384),
  /** torch.compile the actor, reference and critic models (each decoder layer, and the softmax over the vocabulary) where the PyTorch engine runs on CUDA: about 2x the update throughput of a 0.6B model (infra/gpu/README.md). Not applied on the CPU, where compiling costs more than it gains at the demo's sizes. @default true */
  use_torch_compile: bool().default(true),
  /** Passes over each batch. @default 1 */
  ppo_epochs: positiveInt().default(1),
  /** Reshuffle the sequences every PPO epoch (otherwise mini-batches are taken in order). @default false */
  shuffle: bool().default(false),
  /** Seed of that shuffle. @default 42 */
  data_loader_seed: z.int({ error: 'expected an integer' }).default(42),
  /** Symmetric PPO clip; used for `clip_ratio_low/high` when they are null. @default 0.2 */
  clip_ratio: nonNegative().default(0.2),
  /** Lower clip (1 - low); null = clip_ratio. @default 0.2 */
  clip_ratio_low: nonNegative().nullable().default(0.2),
  /** Upper clip (1 + high, DAPO's clip-higher); null = clip_ratio. @default 0.2 */
  clip_ratio_high: nonNegative().nullable().default(0.2),
  /** Dual-clip constant c (> 1) for negative advantages. @default 3.0 */
  clip_ratio_c: finite()
    .refine((v) => v > 1, { error: 'expected a number greater than 1' })
    .default(3.0),
  /** How token losses become one scalar. @default "token-mean" */
  loss_agg_mode: oneOf(LossAggMode.options).default('token-mean'),
  /** Entropy bonus coefficient. @default 0 */
  entropy_coeff: finite().default(0),
  /** Add a KL(actor || ref) loss term (GRPO style). @default false */
  use_kl_loss: bool().default(false),
  /** Coefficient of the KL loss. @default 0.001 */
  kl_loss_coef: nonNegative().default(0.001),
  /** KL estimator of the KL loss. @default "low_var_kl" */
  kl_loss_type: klEstimator(KlPenaltyKind.options).default('low_var_kl'),
  /** Gradient-norm clip. @default 1.0 */
  grad_clip: positive().default(1.0),
  /** The policy loss (verl PolicyLossConfig). */
  policy_loss: PolicyLossSection.prefault({}),
  /** Accepted and ignored (compat-keys.ts): FSDP CPU offload. */
  fsdp_config: z.strictObject({ param_offload: ignored(bool()), optimizer_offload: ignored(bool()) }).optional(),
  ...SapoTemperatureFields,
});

const LORA_MODULE_LIST = `"all-linear" or a list of module names (${LORA_MODULES.join(', ')})`;

/** `target_modules`: "all-linear" or names of the family's layer Linear modules (or dot-separated paths ending in one). */
function loraTargetModules() {
  const name = z.string(EXPECTED + LORA_MODULE_LIST).refine((n) => (LORA_MODULES as readonly string[]).includes(n.slice(n.lastIndexOf('.') + 1)), {
    error: `not a Linear module of the decoder layers (${LORA_MODULES.join(', ')})`,
  });
  return z.union([z.literal('all-linear'), z.array(name).min(1, EXPECTED + LORA_MODULE_LIST)], { error: EXPECTED + LORA_MODULE_LIST });
}

/** Architecture defaults of a randomly initialised model: a tiny Qwen3 (verl's e2e digit-task size). */
const MODEL_DEFAULTS = { architecture: 'Qwen3ForCausalLM', d_model: 128, n_layers: 4, n_heads: 4, d_ff: 512 } as const;

/** Architecture keys: they shape a randomly initialised model; a model directory carries its own. */
const ARCHITECTURE_KEYS = ['architecture', 'd_model', 'n_layers', 'n_heads', 'n_kv_heads', 'head_dim', 'd_ff', 'max_seq_len'] as const;

/** `actor_rollout_ref.model.*`: the model to train (verl: a HF model path), or the shape of a random one. */
export const ModelConfig = z.strictObject({
  /** `char` (the digit task's alphabet), `byte` (UTF-8 bytes), a tokenizer.json path or a directory with HF tokenizer files; null = the model directory's own with `path`, else "char". @default null */
  tokenizer: tokenizerKey().nullable().default(null),
  /** Hugging Face class of a randomly initialised model; null = Qwen3ForCausalLM. Must be null with `path`. @default null */
  architecture: oneOf(Architecture.options).nullable().default(null),
  /** Hidden width (hidden_size); null = 128. Must be null with `path`. @default null */
  d_model: positiveInt().nullable().default(null),
  /** Transformer blocks; null = 4. Must be null with `path`. @default null */
  n_layers: positiveInt().nullable().default(null),
  /** Attention heads; null = 4. Must be null with `path`. @default null */
  n_heads: positiveInt().nullable().default(null),
  /** Key/value heads (grouped-query attention; must divide n_heads); null = n_heads. Must be null with `path`. @default null */
  n_kv_heads: positiveInt().nullable().default(null),
  /** Width of one head (even); null = d_model / n_heads. Must be null with `path`. @default null */
  head_dim: positiveInt().nullable().default(null),
  /** MLP width (intermediate_size); null = 512. Must be null with `path`. @default null */
  d_ff: positiveInt().nullable().default(null),
  /** Longest prompt + response; null = data.max_prompt_length + data.max_response_length. Must be null with `path`. @default null */
  max_seq_len: positiveInt().nullable().default(null),
  /** Initialisation seed of the weights (random init) and of a critic's value head. @default 42 */
  seed: nonNegativeInt().default(42),
  /** A Hugging Face model directory, or a job directory (its latest checkpoint), to start from instead of random initialisation. @default null */
  path: text().nullable().default(null),
  /** Recompute each layer's activations in the backward pass (less memory, same gradients); the PyTorch engine does, the embedded engine ignores it. @default false */
  enable_gradient_checkpointing: bool().default(false),
  /** Accepted and ignored (compat-keys.ts). */
  use_remove_padding: ignored(bool()),
});

type ArchitectureInput = { [K in (typeof ARCHITECTURE_KEYS)[number]]: K extends 'architecture' ? Architecture | null : number | null };

/**
 * Problems of the architecture keys: set next to a model path (the directory's
 * config.json defines the architecture), or a shape the model cannot take.
 * Keys are relative to the model section; `section` names it in messages.
 */
export function architectureProblems(model: ArchitectureInput, pathKey: string, section: string, hasPath: boolean): Array<{ key: string; message: string }> {
  if (hasPath) {
    return ARCHITECTURE_KEYS.filter((k) => model[k] !== null).map((k) => ({
      key: k,
      message: `must be null when ${pathKey} is set: the model directory's config.json defines the architecture`,
    }));
  }
  const a = resolveArchitecture(model);
  const problems: Array<{ key: string; message: string }> = [];
  if (a.head_dim === null && a.d_model % a.n_heads !== 0) {
    problems.push({ key: 'n_heads', message: `must divide ${section}.d_model (${a.d_model}) unless ${section}.head_dim is set` });
  }
  const headDim = a.head_dim ?? a.d_model / a.n_heads;
  if (Number.isInteger(headDim) && headDim % 2 !== 0) {
    problems.push({ key: a.head_dim === null ? 'n_heads' : 'head_dim', message: `the head width (${headDim}) must be even for RoPE` });
  }
  if (a.n_kv_heads !== null && a.n_heads % a.n_kv_heads !== 0) {
    problems.push({ key: 'n_kv_heads', message: `must divide ${section}.n_heads (${a.n_heads})` });
  }
  return problems;
}

/** The architecture with its defaults filled in (`n_kv_heads` and `head_dim` stay null: the model config derives them). */
export function resolveArchitecture<
  M extends { architecture: Architecture | null; d_model: number | null; n_layers: number | null; n_heads: number | null; d_ff: number | null },
>(m: M) {
  return {
    ...m,
    architecture: m.architecture ?? MODEL_DEFAULTS.architecture,
    d_model: m.d_model ?? MODEL_DEFAULTS.d_model,
    n_layers: m.n_layers ?? MODEL_DEFAULTS.n_layers,
    n_heads: m.n_heads ?? MODEL_DEFAULTS.n_heads,
    d_ff: m.d_ff ?? MODEL_DEFAULTS.d_ff,
  };
}

/** `actor_rollout_ref.*`. */
/** `actor_rollout_ref.ref.*`: the reference policy is the initial weights; these verl keys only place it. */
export const RefConfig = z.strictObject({
  /** Accepted and ignored (compat-keys.ts). */
  log_prob_micro_batch_size_per_gpu: ignored(positiveInt().nullable()),
  /** Accepted and ignored (compat-keys.ts). */
  fsdp_config: z.strictObject({ param_offload: ignored(bool()) }).optional(),
  /** Accepted and ignored (compat-keys.ts). */
  use_torch_compile: ignored(bool()),
});

/** verl's LoRA keys of `actor_rollout_ref.model` (the actor's; SFT jobs train whole models). */
const LoraKeys = {
  /** LoRA rank: > 0 trains adapters on the frozen model (the reference policy is the model with them off); 0 = off (verl's default). @default 0 */
  lora_rank: nonNegativeInt().default(0),
  /** LoRA's alpha: the adapters' output is scaled by lora_alpha / lora_rank. @default 16 */
  lora_alpha: positive().default(16),
  /** The modules LoRA adapts: "all-linear" (every Linear of the decoder layers) or a list of them (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj). @default "all-linear" */
  target_modules: loraTargetModules().default('all-linear'),
};

export const ActorRolloutRefConfig = z.strictObject({
  rollout: RolloutSamplingConfig.prefault({}),
  actor: ActorConfig.prefault({}),
  model: ModelConfig.extend(LoraKeys).prefault({}),
  ref: RefConfig.optional(),
});
/** Parsed `actor_rollout_ref` section. */
export type ActorRolloutRefConfig = z.infer<typeof ActorRolloutRefConfig>;
