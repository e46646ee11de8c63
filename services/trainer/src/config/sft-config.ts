import { z } from 'zod';
import { ModelConfig, architectureProblems, resolveArchitecture } from './actor-rollout-ref-config.ts';
import { between, bool, intOrOff, nonNegative, oneOf, pathList, positive, positiveInt, text } from './fields.ts';
import { TrainerConfig } from './trainer-config.ts';
import { strategy } from './strategy.ts';

/** verl sft_trainer.yaml `data.*`: single-turn (prompt and response columns) or multi-turn (a messages column). */
export const SftDataConfig = z.strictObject({
  /** Training parquet file(s), concatenated. Required. */
  train_files: pathList(),
  /** Validation parquet file(s); none means no validation loss. @default [] */
  val_files: pathList()
    .or(z.null())
    .default(null)
    .transform((v) => v ?? []),
  /** Sequences per optimizer step. verl: 256. @default 32 */
  train_batch_size: positiveInt().default(32),
  /** Sequences per forward/backward pass (gradient accumulation); also the validation batch size. @default 4 */
  micro_batch_size_per_gpu: positiveInt().default(4),
  /** Use only this many training rows; -1 = all. @default -1 */
  train_max_samples: intOrOff().default(-1),
  /** Use only this many validation rows; -1 = all. @default -1 */
  val_max_samples: intOrOff().default(-1),
  /** Column of the prompt (a string, or a list of {role, content} messages); with prompt_dict_keys, a struct column. @default "question" */
  prompt_key: text().default('question'),
  /** Column of the response text. @default "answer" */
  response_key: text().default('answer'),
  /** Keys followed inside the prompt column (verl: `extra_info` + `[question]`). @default null */
  prompt_dict_keys: z.array(text(), { error: 'expected a list of keys' }).nullable().default(null),
  /** Keys followed inside the response column. @default null */
  response_dict_keys: z.array(text(), { error: 'expected a list of keys' }).nullable().default(null),
  multiturn: z
    .strictObject({
      /** Read a messages column instead of prompt/response columns; the loss covers every assistant turn. @default false */
      enable: bool().default(false),
      /** Column with the list of {role, content} messages. @default "messages" */
      messages_key: text().default('messages'),
    })
    .prefault({}),
  /** Longest prompt + response in tokens (chat template and EOS included). verl: 1024. @default 256 */
  max_length: positiveInt().default(256),
  /** Longer samples: "error" stops the job naming the row, "left" drops tokens from the start, "right" from the end. @default "error" */
  truncation: oneOf(['error', 'left', 'right']).default('error'),
});
/** Parsed SFT `data` section. */
export type SftDataConfig = z.infer<typeof SftDataConfig>;

/** verl sft_trainer.yaml `optim.*` (AdamW with a warmup schedule). */
export const SftOptimConfig = z.strictObject({
  /** Peak learning rate. verl: 1e-5 (fine-tuning a pretrained model). @default 1e-5 */
  lr: positive().default(1e-5),
  /** Adam (beta1, beta2). @default [0.9, 0.95] */
  betas: z.tuple([between(0, 0.999999), between(0, 0.999999)], { error: 'expected a list of two numbers in [0, 1)' }).default([0.9, 0.95]),
  /** Decoupled weight decay. @default 0.01 */
  weight_decay: nonNegative().default(0.01),
  /** Share of the schedule's steps spent warming up linearly from 0. @default 0.1 */
  lr_warmup_steps_ratio: between(0, 1).default(0.1),
  /** Gradient-norm clip. @default 1.0 */
  clip_grad: positive().default(1.0),
  /** "cosine" decays to 0, "constant" holds the peak, "wsd" holds it for 90% of the post-warmup steps then decays. @default "cosine" */
  lr_scheduler: oneOf(['cosine', 'constant', 'wsd']).default('cosine'),
});
/** Parsed SFT `optim` section. */
export type SftOptimConfig = z.infer<typeof SftOptimConfig>;

/** The embedded model of an SFT job: the RL model keys, with verl's `partial_pretrain` for the starting weights. */
export const SftModelConfig = ModelConfig.omit({ path: true, use_remove_padding: true }).extend({
  /** A Hugging Face model directory, or a job directory (its latest checkpoint), to start from; null = random initialisation. @default null */
  partial_pretrain: text().nullable().default(null),
  /** The engine: "embedded" (jax-js, no Python) or verl's "fsdp" / "fsdp2" (the PyTorch engine). @default "embedded" */
  strategy: strategy().default('embedded'),
  /** torch.compile the model (each decoder layer, and the softmax over the vocabulary) where the PyTorch engine runs on CUDA, as verl's actor.use_torch_compile does for RL; not applied on the CPU. @default true */
  use_torch_compile: bool().default(true),
});

/** `trainer.*` of an SFT job: the RL keys plus verl's `trainer.seed`, with sft_trainer.yaml's defaults. */
export const SftTrainerConfig = TrainerConfig.omit({ validation_data_dir: true, rollout_data_dir: true, critic_warmup: true }).extend({
  /** Passes over the training data. @default 4 */
  total_epochs: positiveInt().default(4),
  /** Validate before the first step (val/loss at step 0). verl's SFT trainer does not. @default false */
  val_before_train: bool().default(false),
  /** Project name; part of the default output directory. @default "gsm8k-sft" */
  project_name: text().default('gsm8k-sft'),
  /** Run name; part of the default output directory. @default "test" */
  experiment_name: text().default('test'),
  /** Shuffling seed of the training batches. @default 1 */
  seed: z.int({ error: 'expected an integer' }).default(1),
});

/** An SFT job as written (verl's fsdp_sft_trainer keys). */
export const SftJobConfigInput = z.strictObject({
  /** Job kind: "sft" (this schema) or "rl". */
  kind: z.literal('sft', { error: 'expected "sft"' }),
  data: SftDataConfig,
  model: SftModelConfig.prefault({}),
  optim: SftOptimConfig.prefault({}),
  trainer: SftTrainerConfig.prefault({}),
});

function checkCrossKeys(c: z.infer<typeof SftJobConfigInput>, ctx: z.RefinementCtx): void {
  const { data, model } = c;
  // verl fsdp_sft_trainer asserts this (per data-parallel rank; one rank here).
  if (data.train_batch_size % data.micro_batch_size_per_gpu !== 0) {
    ctx.addIssue({ code: 'custom', path: ['data', 'micro_batch_size_per_gpu'], message: `must divide data.train_batch_size (${data.train_batch_size})` });
  }
  for (const p of architectureProblems(model, 'model.partial_pretrain', 'model', model.partial_pretrain !== null)) {
    ctx.addIssue({ code: 'custom', path: ['model', p.key], message: p.message });
  }
  if (model.max_seq_len !== null && model.max_seq_len < data.max_length) {
    ctx.addIssue({ code: 'custom', path: ['model', 'max_seq_len'], message: `must be >= data.max_length (${data.max_length})` });
  }
}

/** The validated SFT job config with derived keys filled in. */
export const SftJobConfig = SftJobConfigInput.superRefine(checkCrossKeys).transform((c) => ({
  ...c,
  model: { ...resolveArchitecture(c.model), max_seq_len: c.model.max_seq_len ?? c.data.max_length },
  trainer: { ...c.trainer, default_local_dir: c.trainer.default_local_dir ?? `.run/checkpoints/${c.trainer.project_name}/${c.trainer.experiment_name}` },
}));
/** A validated SFT job config. */
export type SftJobConfig = z.output<typeof SftJobConfig>;
