import { z } from 'zod';
import { validationError } from '@rl/service-kit/core';

/** The Hugging Face model classes the engine computes (transformers' definitions). */
export const Architecture = z.enum(['LlamaForCausalLM', 'Qwen2ForCausalLM', 'Qwen3ForCausalLM']);
export type Architecture = z.output<typeof Architecture>;

/**
 * RoPE frequency scaling, as transformers' `rope_scaling`: `linear` divides
 * every inverse frequency by `factor`; `llama3` (Llama 3.1+) divides only the
 * low frequencies, with a smooth blend between the two wavelength thresholds.
 */
export const RopeScaling = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('linear'), factor: z.number().positive() }),
  z.strictObject({
    type: z.literal('llama3'),
    factor: z.number().positive(),
    lowFreqFactor: z.number().positive(),
    highFreqFactor: z.number().positive(),
    originalMaxPositionEmbeddings: z.number().int().positive(),
  }),
]);
export type RopeScaling = z.output<typeof RopeScaling>;

const ModelConfigFields = z.strictObject({
  /** @default 'Qwen3ForCausalLM' (the project's own small models are tiny Qwen3s) */
  architecture: Architecture.default('Qwen3ForCausalLM'),
  vocabSize: z
    .number()
    .int()
    .min(2)
    .max(1 << 20),
  /** hidden_size */
  dModel: z
    .number()
    .int()
    .min(2)
    .max(1 << 14),
  nLayers: z.number().int().min(1).max(256),
  /** Query heads (num_attention_heads). */
  nHeads: z.number().int().min(1).max(256),
  /** Key/value heads (num_key_value_heads; grouped-query attention when fewer than nHeads). @default nHeads */
  nKvHeads: z.number().int().min(1).max(256).optional(),
  /** Per-head width (head_dim). @default dModel / nHeads */
  headDim: z.number().int().min(2).max(4096).optional(),
  /** Hidden width of the SwiGLU MLP (intermediate_size). */
  dFF: z
    .number()
    .int()
    .min(1)
    .max(1 << 16),
  /** Longest prompt + response, in tokens (max_position_embeddings). */
  maxSeqLen: z
    .number()
    .int()
    .min(2)
    .max(1 << 20),
  /** RoPE base. @default 10000 */
  ropeTheta: z.number().positive().default(10_000),
  /** @default null (no scaling) */
  ropeScaling: RopeScaling.nullable().default(null),
  /** RMSNorm epsilon (rms_norm_eps). @default 1e-6 */
  normEps: z.number().positive().default(1e-6),
  /** Output head shares the embedding matrix. @default true */
  tieEmbeddings: z.boolean().default(true),
  /** Biases on q/k/v/o_proj (Llama, Qwen3; Qwen2 always has q/k/v biases and no o_proj bias). @default false */
  attentionBias: z.boolean().default(false),
  /** Biases on gate/up/down_proj (Llama only). @default false */
  mlpBias: z.boolean().default(false),
  /**
   * A one-label token-classification head `score` (Linear D -> 1) on the
   * final-norm hidden states: the model is a critic or reward model (verl's
   * AutoModelForTokenClassification with num_labels 1). @default false
   */
  valueHead: z.boolean().default(false),
});

/** Shape of a Llama / Qwen2 / Qwen3 decoder (pre-norm RMSNorm, RoPE, SwiGLU MLP), camelCase. */
export const ModelConfig = ModelConfigFields.superRefine((c, ctx) => {
  const nKv = c.nKvHeads ?? c.nHeads;
  if (c.nHeads % nKv !== 0) ctx.addIssue({ code: 'custom', path: ['nKvHeads'], message: `nKvHeads (${nKv}) must divide nHeads (${c.nHeads})` });
  if (c.headDim === undefined) {
    if (c.dModel % c.nHeads !== 0) {
      ctx.addIssue({ code: 'custom', path: ['dModel'], message: `dModel must be divisible by nHeads when headDim is not given` });
    } else if ((c.dModel / c.nHeads) % 2 !== 0) {
      ctx.addIssue({ code: 'custom', path: ['nHeads'], message: 'head size (dModel / nHeads) must be even for RoPE' });
    }
  } else if (c.headDim % 2 !== 0) {
    ctx.addIssue({ code: 'custom', path: ['headDim'], message: 'headDim must be even for RoPE' });
  }
  const rs = c.ropeScaling;
  if (rs?.type === 'llama3' && rs.highFreqFactor <= rs.lowFreqFactor) {
    ctx.addIssue({ code: 'custom', path: ['ropeScaling', 'highFreqFactor'], message: 'highFreqFactor must be greater than lowFreqFactor' });
  }
  if (c.mlpBias && c.architecture !== 'LlamaForCausalLM') {
    ctx.addIssue({ code: 'custom', path: ['mlpBias'], message: `${c.architecture} has no MLP biases (mlpBias is LlamaForCausalLM only)` });
  }
  if (c.architecture === 'Qwen2ForCausalLM' && c.attentionBias) {
    ctx.addIssue({
      code: 'custom',
      path: ['attentionBias'],
      message: 'Qwen2ForCausalLM always has q/k/v biases and no o_proj bias; attentionBias must be false',
    });
  }
}).transform((c) => ({ ...c, nKvHeads: c.nKvHeads ?? c.nHeads, headDim: c.headDim ?? c.dModel / c.nHeads }));

/** A validated model configuration with defaults applied (`nKvHeads` and `headDim` always set). */
export type ModelConfig = z.output<typeof ModelConfig>;
/** What callers may write (defaults optional). */
export type ModelConfigInput = z.input<typeof ModelConfig>;

/** Head size. */
export function headDim(config: ModelConfig): number {
  return config.headDim;
}

/** Which projections carry a bias, exactly as transformers builds each architecture. */
export function biases(config: ModelConfig): { qkv: boolean; o: boolean; mlp: boolean } {
  if (config.architecture === 'Qwen2ForCausalLM') return { qkv: true, o: false, mlp: false };
  return { qkv: config.attentionBias, o: config.attentionBias, mlp: config.mlpBias };
}

/** Whether the attention has per-head RMSNorms on queries and keys before RoPE (Qwen3). */
export function hasQkNorm(config: ModelConfig): boolean {
  return config.architecture === 'Qwen3ForCausalLM';
}

/** Validates an untrusted config (e.g. from weights metadata); a bad one is a 400 naming the field. */
export function parseModelConfig(input: unknown): ModelConfig {
  const parsed = ModelConfig.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error, 'model config');
  return parsed.data;
}
