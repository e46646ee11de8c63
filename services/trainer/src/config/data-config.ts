import { z } from 'zod';
import { bool, intOrOff, pathList, positive, positiveInt, text } from './fields.ts';

/** Seed used when `data.seed` is null. */
export const DEFAULT_DATA_SEED = 1;

/**
 * `data.*`: verl's data section (trainer/config/data/legacy_data.yaml) for the
 * keys this trainer implements, plus `default_data_source` and `mix_weights`.
 */
export const DataConfig = z.strictObject({
  /** Training parquet file(s); several are concatenated (or mixed by `mix_weights`). Required. */
  train_files: pathList(),
  /** Validation parquet file(s); none means no validation runs. @default [] */
  val_files: pathList()
    .or(z.null())
    .default(null)
    .transform((v) => v ?? []),
  /** Prompts per training step (before `rollout.n` repeats). verl: 1024. @default 16 */
  train_batch_size: positiveInt().default(16),
  /** Prompts per validation batch; null = the whole validation set at once (verl). @default null */
  val_batch_size: positiveInt().nullable().default(null),
  /** Use only this many training rows (random subset when shuffling); -1 = all. @default -1 */
  train_max_samples: intOrOff().default(-1),
  /** Use only this many validation rows (random subset when shuffling, as verl); -1 = all. @default -1 */
  val_max_samples: intOrOff().default(-1),
  /** Longest prompt in tokens. verl: 512. @default 256 */
  max_prompt_length: positiveInt().default(256),
  /** Longest response in tokens. verl: 512. @default 256 */
  max_response_length: positiveInt().default(256),
  /** Drop prompts longer than `max_prompt_length` tokens when loading. @default false */
  filter_overlong_prompts: bool().default(false),
  /** A prompt longer than max_prompt_length (not filtered): "error" stops the job naming the row (verl's default). @default "error" */
  truncation: z
    .string({ error: 'expected "error"' })
    .refine((v) => v === 'error', {
      error:
        'only "error" is implemented: left/right/middle would cut token ids the generation service produces from the messages; use data.filter_overlong_prompts to drop long prompts instead',
    })
    .default('error'),
  /** Shuffle training rows each epoch (epoch e uses seed + e). @default true */
  shuffle: bool().default(true),
  /** Shuffling seed; null means 1 (verl's torch generator is then unseeded, we stay deterministic). @default null */
  seed: z
    .int({ error: 'expected an integer or null' })
    .nullable()
    .default(null)
    .transform((v) => v ?? DEFAULT_DATA_SEED),
  /** Column holding the prompt: a list of {role, content} or a plain string. @default "prompt" */
  prompt_key: text().default('prompt'),
  /** Column of the prompt without the context r (rl-data convert-story's), read when a row's reward takes story signals (reward.signals). @default "prompt_without_context" */
  prompt_without_context_key: text().default('prompt_without_context'),
  /** data_source for rows without a `data_source` column (e.g. verl's arithmetic-sequence files). @default null */
  default_data_source: text().nullable().default(null),
  /** Per-file sampling weights for `train_files` (one per file); null = concatenate. @default null */
  mix_weights: z.array(positive(), { error: 'expected a list of positive numbers' }).min(1).nullable().default(null),
});
/** Parsed `data` section. */
export type DataConfig = z.infer<typeof DataConfig>;
