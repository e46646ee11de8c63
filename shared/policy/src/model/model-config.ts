import { z } from 'zod';
import { validationError } from '@rl/service-kit/core';

/** Shape of the decoder-only transformer (Llama-like: pre-norm RMSNorm, RoPE, SwiGLU MLP). */
export const ModelConfig = z
  .object({
    vocabSize: z
      .number()
      .int()
      .min(2)
      .max(1 << 20),
    dModel: z
      .number()
      .int()
      .min(2)
      .max(1 << 14),
    nLayers: z.number().int().min(1).max(256),
    nHeads: z.number().int().min(1).max(256),
    /** Hidden width of the SwiGLU MLP. */
    dFF: z
      .number()
      .int()
      .min(1)
      .max(1 << 16),
    /** Longest prompt + response, in tokens. */
    maxSeqLen: z
      .number()
      .int()
      .min(2)
      .max(1 << 16),
    /** RoPE base. @default 10000 */
    ropeTheta: z.number().positive().default(10_000),
    /** RMSNorm epsilon. @default 1e-6 */
    normEps: z.number().positive().default(1e-6),
    /** Output head shares the embedding matrix. @default true */
    tieEmbeddings: z.boolean().default(true),
    /**
     * A scalar value head `value_head [D, 1]` on the final-norm hidden states: the
     * model is a critic (verl's AutoModelForTokenClassification with one label). @default false
     */
    valueHead: z.boolean().default(false),
  })
  .strict()
  .refine((c) => c.dModel % c.nHeads === 0, { message: 'dModel must be divisible by nHeads', path: ['dModel'] })
  .refine((c) => (c.dModel / c.nHeads) % 2 === 0, { message: 'head size (dModel / nHeads) must be even for RoPE', path: ['nHeads'] });

/** A validated model configuration with defaults applied. */
export type ModelConfig = z.output<typeof ModelConfig>;
/** What callers may write (defaults optional). */
export type ModelConfigInput = z.input<typeof ModelConfig>;

/** Head size. */
export function headDim(config: ModelConfig): number {
  return config.dModel / config.nHeads;
}

/** Validates an untrusted config (e.g. from weights metadata); a bad one is a 400 naming the field. */
export function parseModelConfig(input: unknown): ModelConfig {
  const parsed = ModelConfig.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error, 'model config');
  return parsed.data;
}
