// What the controller tells a policy worker at start (a JSON file whose path is
// in POLICY_WORKER_SPEC): model, tokenizer, optimizer and loss, fixed per job.
import { z } from 'zod';

export const WorkerSpec = z.object({
  job: z.string().min(1),
  model: z.object({
    tokenizer: z.enum(['char', 'byte']),
    d_model: z.number().int().positive(),
    n_layers: z.number().int().positive(),
    n_heads: z.number().int().positive(),
    d_ff: z.number().int().positive(),
    max_seq_len: z.number().int().positive(),
    seed: z.number().int().min(0),
    /** Initial weights (safetensors) instead of random initialisation. */
    path: z.string().nullable(),
  }),
  optim: z.object({ lr: z.number().positive(), weight_decay: z.number().min(0), betas: z.tuple([z.number(), z.number()]), grad_clip: z.number().positive() }),
  loss: z.object({
    clip_ratio_low: z.number(),
    clip_ratio_high: z.number(),
    clip_ratio_c: z.number(),
    loss_agg_mode: z.enum(['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm']),
    entropy_coeff: z.number(),
    use_kl_loss: z.boolean(),
    kl_loss_coef: z.number(),
    kl_loss_type: z.string(),
    loss_scale_factor: z.number().positive(),
  }),
  /** JetStream object store bucket and object name the weights are published under. */
  weights: z.object({ bucket: z.string().min(1), name: z.string().min(1) }),
});
export type WorkerSpec = z.infer<typeof WorkerSpec>;
