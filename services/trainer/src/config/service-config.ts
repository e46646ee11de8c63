// The trainer service's own environment (not a job's config, which the rest of
// this folder parses): read once in main.ts.
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';

/** Environment of the trainer service. */
export const TrainerServiceConfig = BaseConfig.extend({
  /** HTTP port. @default 8105 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8105),
  /** Directory relative data files and `trainer.default_local_dir` resolve against. @default the working directory */
  TRAINER_BASE_DIR: z.string().min(1).default(process.cwd()),
});
export type TrainerServiceConfig = z.infer<typeof TrainerServiceConfig>;
