import { z } from 'zod';
import { ignored } from './compat-keys.ts';
import { bool, intOrOff, oneOf, positiveInt, text } from './fields.ts';

/** `trainer.*` (verl ppo_trainer.yaml `trainer` subset). */
export const TrainerConfig = z.strictObject({
  /** Passes over the training data. @default 30 */
  total_epochs: positiveInt().default(30),
  /** Stop after this many steps; null = total_epochs * steps per epoch. @default null */
  total_training_steps: positiveInt().nullable().default(null),
  /** Checkpoint every N steps (and at the last step); -1 = no checkpoints (verl). @default -1 */
  save_freq: intOrOff().default(-1),
  /** Validate every N steps (and at the end); -1 = never during training. @default -1 */
  test_freq: intOrOff().default(-1),
  /** Steps at the start that update only the critic (verl: the actor updates once critic_warmup <= step). @default 0 */
  critic_warmup: z.int({ error: 'expected a non-negative integer' }).min(0, { error: 'expected a non-negative integer' }).default(0),
  /** Run validation before the first step. @default true */
  val_before_train: bool().default(true),
  /** Project name; part of the default output directory. @default "verl_examples" */
  project_name: text().default('verl_examples'),
  /** Run name; part of the default output directory. @default "gsm8k" */
  experiment_name: text().default('gsm8k'),
  /** Checkpoints, metrics.jsonl and plots; null = .run/checkpoints/<project_name>/<experiment_name> (inside the default output root). @default null */
  default_local_dir: text().nullable().default(null),
  /** "auto" resumes from the latest checkpoint in default_local_dir; "disable" starts fresh. @default "auto" */
  resume_mode: oneOf(['auto', 'disable']).default('auto'),
  /** Each validation's generations as `<dir>/<step>.jsonl` (verl _dump_generations); null = none. @default null */
  validation_data_dir: text().nullable().default(null),
  /** Each training step's rollouts as `<dir>/<step>.jsonl`; null = none. @default null */
  rollout_data_dir: text().nullable().default(null),
  /** Processes of the PyTorch engine (strategy fsdp/fsdp2), one per GPU: each computes a share of every micro-batch and the gradients are summed before the step; the embedded engine is one process. verl: 8. @default 1 */
  n_gpus_per_node: positiveInt().default(1),
  /** Deadline of each call to the job's policy worker other than the long ones below (log-probs, values, info). Not a verl key. @default 120000 */
  worker_call_timeout_ms: positiveInt().default(120_000),
  /** Deadline of the policy worker's long calls: update, sft_step, update_critic, export (checkpoints, publishing, final models) and embedded generation. Not a verl key. @default 600000 */
  worker_update_timeout_ms: positiveInt().default(600_000),
  /** Accepted and ignored (compat-keys.ts): the engine's processes run on this machine, so 1 is the only value. */
  nnodes: ignored(positiveInt().max(1, { error: 'the engine processes run on this machine: only 1 node (start one job per machine)' })),
  /** Accepted and ignored (compat-keys.ts): logging backends. */
  logger: ignored(z.union([text(), z.array(text())], { error: 'expected a logger name or a list of them' })),
});
/** Parsed `trainer` section (before `default_local_dir` is filled in). */
export type TrainerConfig = z.infer<typeof TrainerConfig>;
