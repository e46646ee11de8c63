// Runs a job of either kind: RL (verl main_ppo) or SFT (verl fsdp_sft_trainer),
// from a config whose paths were opened (adapters/job-paths.ts openJobPaths).
import type { TrainingJobConfig } from '../config/index.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import type { JobEnvironment } from './job-environment.ts';
import { runRlJob } from './run-rl-job.ts';
import { runSftJob } from './run-sft-job.ts';

export function runJob(env: JobEnvironment, c: TrainingJobConfig, ctx: JobContext): Promise<void> {
  return c.kind === 'sft' ? runSftJob(env, c, ctx) : runRlJob(env, c, ctx);
}
