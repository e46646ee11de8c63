// The policy worker's NATS protocol, one subject per verb under `policy.<job>.`.
// The CPU worker in this repository implements it with the embedded transformer;
// a GPU worker on a GPU node implements the same subjects and bodies (see the
// service README). Token ids travel as plain JSON arrays: a batch of 512
// sequences of 64 tokens is ~150 KB, under the chunking threshold handling
// anything larger.
import { z } from 'zod';
import { KlPenaltyKind, ROLLOUT_RS_OPTIONS } from '../core/algos/index.ts';
import { LossAggMode, POLICY_LOSS_MODES } from './losses/modes.ts';

/** Subject of one verb for one job. */
export const policySubject = (job: string, verb: PolicyVerb) => `policy.${job}.${verb}`;
export const POLICY_VERBS = ['generate', 'logprobs', 'update', 'sft_step', 'values', 'update_critic', 'export', 'info'] as const;
export type PolicyVerb = (typeof POLICY_VERBS)[number];

const Ids = z.array(z.number().int().min(0));
const Floats = z.array(z.number());

export const SamplingSchema = z.object({
  temperature: z.number().min(0).default(1),
  top_k: z.number().int().default(0),
  top_p: z.number().gt(0).max(1).default(1),
  max_tokens: z.number().int().positive(),
  seed: z.number().int().optional(),
});

/** `generate`: continue prompts (the controller's own validation rollouts, or a trainer without a generation service). */
export const GenerateRequest = z.object({ prompts: z.array(Ids).min(1), sampling: SamplingSchema });
export const GenerateReply = z.object({
  version: z.string(),
  generations: z.array(z.object({ token_ids: Ids, logprobs: Floats, finish_reason: z.enum(['stop', 'length']) })),
  compute_s: z.number().optional(),
});

/** `logprobs`: teacher-forced log-probs (and entropies) of responses under the actor or the frozen reference. */
export const LogprobsRequest = z.object({
  model: z.enum(['actor', 'ref']),
  pairs: z.array(z.object({ prompt: Ids, response: Ids })).min(1),
  entropy: z.boolean().default(false),
  /** Padded widths to use (one compiled shape per job); at least the longest prompt / response. */
  prompt_width: z.number().int().positive().optional(),
  response_width: z.number().int().positive().optional(),
  /**
   * Story signals: score `pairs[index].response` again after `prompt`, the
   * prompt without the context r (log p(token | prompt without r)), in the
   * same request as the log-probs with r.
   */
  without_context: z.array(z.object({ index: z.number().int().min(0), prompt: Ids.min(1) })).optional(),
  /** The longest prompt without r of the job (the pass pads to quarter steps of it: four shapes per job). */
  without_context_prompt_width: z.number().int().positive().optional(),
});
export const LogprobsReply = z.object({
  logprobs: z.array(Floats),
  entropies: z.array(Floats).optional(),
  /** One per `without_context` entry, in its order. */
  logprobs_without_context: z.array(Floats).optional(),
  /** Seconds of the pass without r (part of compute_s). */
  without_context_compute_s: z.number().optional(),
  /** Seconds the worker computed for this request (the rest of the round trip is the bus and the caller). */
  compute_s: z.number().optional(),
});

/** verl `policy_loss.rollout_correction` (algorithm.rollout_correction, copied there in bypass mode), verl's yaml defaults. */
export const RolloutCorrectionSchema = z.object({
  rollout_is: z.enum(['token', 'sequence']).nullable().default(null),
  rollout_is_threshold: z.number().positive().nullable().default(2.0),
  rollout_is_batch_normalize: z.boolean().default(false),
  /** Comma-separated criteria among rollout_corr_helper's options, e.g. "token_k1,seq_mean_k3". */
  rollout_rs: z
    .string()
    .regex(new RegExp(`^\\s*(${ROLLOUT_RS_OPTIONS.join('|')})\\s*(,\\s*(${ROLLOUT_RS_OPTIONS.join('|')})\\s*)*$`))
    .nullable()
    .default(null),
  rollout_rs_threshold: z.union([z.string(), z.number()]).nullable().default(null),
  loss_type: z.enum(['ppo_clip', 'reinforce']).default('ppo_clip'),
});

/** verl `actor_rollout_ref.actor.policy_loss` (PolicyLossConfig), verl's defaults. */
export const PolicyLossSchema = z.object({
  loss_mode: z.enum(POLICY_LOSS_MODES).default('vanilla'),
  clip_cov_ratio: z.number().positive().default(0.0002),
  clip_cov_lb: z.number().default(1.0),
  clip_cov_ub: z.number().default(5.0),
  // verl asserts > 0; above 1 torch.topk fails on k > n, so the worker refuses it up front.
  kl_cov_ratio: z.number().positive().max(1).default(0.0002),
  ppo_kl_coef: z.number().default(0.1),
  rollout_correction: RolloutCorrectionSchema.prefault({}),
});

/** The actor's loss settings (verl `actor_rollout_ref.actor.*`). */
export const ActorLossSchema = z.object({
  clip_ratio_low: z.number(),
  clip_ratio_high: z.number(),
  clip_ratio_c: z.number(),
  loss_agg_mode: LossAggMode,
  entropy_coeff: z.number(),
  use_kl_loss: z.boolean(),
  kl_loss_coef: z.number(),
  kl_loss_type: KlPenaltyKind,
  /** SAPO gate temperatures (verl actor tau_pos / tau_neg). */
  tau_pos: z
    .number()
    .refine((v) => v !== 0, { error: 'tau_pos must not be 0' })
    .default(1.0),
  tau_neg: z
    .number()
    .refine((v) => v !== 0, { error: 'tau_neg must not be 0' })
    .default(1.05),
  policy_loss: PolicyLossSchema.prefault({}),
  ppo_epochs: z.number().int().positive(),
  /** Sequences per optimizer step. */
  ppo_mini_batch_size: z.number().int().positive(),
  /** Sequences per forward/backward pass (gradient accumulation); null: the whole mini-batch. */
  ppo_micro_batch_size: z.number().int().positive().nullable().default(null),
  /** Reshuffle the sequences every PPO epoch (verl actor.shuffle); otherwise mini-batches are taken in order. */
  shuffle: z.boolean().default(false),
  /** Seed of that shuffle (verl actor.data_loader_seed). */
  data_loader_seed: z.number().int().default(42),
  grad_clip: z.number().positive(),
  lr: z.number().positive(),
});

/** `update`: PPO epochs over mini-batches of one step's experience. */
export const UpdateRequest = z.object({
  step: z.number().int().min(0),
  loss: ActorLossSchema,
  seed: z.number().int(),
  /** Padded widths every mini-batch uses (one compiled shape per job); at least the longest prompt / response. */
  prompt_width: z.number().int().positive().optional(),
  response_width: z.number().int().positive().optional(),
  batch: z
    .array(
      z.object({
        prompt: Ids,
        response: Ids,
        /** 1 for model tokens, 0 for tool/interaction tokens (excluded from the loss). */
        response_mask: z.array(z.number().int().min(0).max(1)),
        advantages: Floats,
        old_logprobs: Floats,
        ref_logprobs: Floats.optional(),
      }),
    )
    .min(1),
});
export const UpdateReply = z.object({
  version: z.string(),
  /** verl actor metric names: actor/pg_loss, actor/pg_clipfrac, actor/ppo_kl, actor/entropy, actor/grad_norm, actor/kl_loss, actor/lr ... (means over mini-batches). */
  metrics: z.record(z.string(), z.number()),
  compute_s: z.number().optional(),
});

/** `sft_step`: one optimizer step of supervised fine-tuning over micro-batches (gradient accumulation), verl fsdp_sft_trainer.training_step. */
export const SftStepRequest = z.object({
  step: z.number().int().min(1),
  /** Learning rate of this step (the controller runs the schedule). */
  lr: z.number().min(0),
  micro_batches: z
    .array(
      z
        .array(
          z.object({
            prompt: Ids.min(1),
            response: Ids,
            /** 1 where the response token is learned (assistant content and its end-of-turn token). */
            loss_mask: z.array(z.number().int().min(0).max(1)),
          }),
        )
        .min(1),
    )
    .min(1),
  /** Padded widths every micro-batch uses (one compiled shape per job); at least the longest prompt / response. */
  prompt_width: z.number().int().positive().optional(),
  response_width: z.number().int().positive().optional(),
});
export const SftStepReply = z.object({
  version: z.string(),
  /** Sum over micro-batches of their token-mean NLL / number of micro-batches (verl train/loss). */
  loss: z.number(),
  /** Gradient norm before clipping. */
  grad_norm: z.number(),
  /** The norm was not finite and the update was skipped. */
  skipped: z.boolean(),
  compute_s: z.number().optional(),
});

/** `values`: the critic's value of the state before each response token (GAE jobs). */
export const ValuesRequest = z.object({
  pairs: z.array(z.object({ prompt: Ids, response: Ids })).min(1),
  prompt_width: z.number().int().positive().optional(),
  response_width: z.number().int().positive().optional(),
});
export const ValuesReply = z.object({ values: z.array(Floats), compute_s: z.number().optional() });

/** The critic's update settings (verl `critic.*`). */
export const CriticLossSchema = z.object({
  ppo_epochs: z.number().int().positive(),
  ppo_mini_batch_size: z.number().int().positive(),
  ppo_micro_batch_size: z.number().int().positive().nullable().default(null),
  shuffle: z.boolean().default(false),
  data_loader_seed: z.number().int().default(42),
  lr: z.number().positive(),
});

/** `update_critic`: verl update_critic over one step's values and GAE returns. */
export const UpdateCriticRequest = z.object({
  step: z.number().int().min(0),
  loss: CriticLossSchema,
  prompt_width: z.number().int().positive().optional(),
  response_width: z.number().int().positive().optional(),
  batch: z
    .array(
      z.object({
        prompt: Ids,
        response: Ids,
        response_mask: z.array(z.number().int().min(0).max(1)),
        /** Values at rollout time (the centre of the clip window). */
        values: Floats,
        returns: Floats,
      }),
    )
    .min(1),
});
export const UpdateCriticReply = z.object({
  /** verl critic metric names: critic/vf_loss, critic/vf_clipfrac, critic/vpred_mean, critic/grad_norm, critic/lr. */
  metrics: z.record(z.string(), z.number()),
  compute_s: z.number().optional(),
});

/** `export`: publish the current weights (object store), write a checkpoint (models + optimizer state), and/or write the job's final models. */
export const ExportRequest = z.object({
  publish: z.boolean().default(true),
  checkpoint_dir: z.string().optional(),
  /** Write the current actor (and critic) as Hugging Face directories at the job directory's hf_model/ (and hf_critic/). */
  final_models: z.boolean().default(false),
  compute_s: z.number().optional(),
});
export const ExportReply = z.object({
  version: z.string(),
  object: z.object({ bucket: z.string(), name: z.string() }).optional(),
  checkpoint_dir: z.string().optional(),
  /** The final model directories written. */
  final_models: z.array(z.string()).optional(),
  compute_s: z.number().optional(),
});

/** `info`: what the worker holds. */
export const InfoRequest = z.object({}).default({});
export const InfoReply = z.object({
  version: z.string(),
  tokenizer: z.enum(['char', 'byte', 'hf']),
  vocab_size: z.number().int(),
  max_seq_len: z.number().int(),
  compute_s: z.number().optional(),
});
