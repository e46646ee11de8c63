// Runs a job of either kind: RL (verl main_ppo) or SFT (verl fsdp_sft_trainer),
// on the real paths of its config.
import type { TrainingJobConfig } from '../config/index.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import type { JobEnvironment } from './job-environment.ts';
import { openJobPaths } from './job-paths.ts';
import { runRlJob } from './run-rl-job.ts';
import { runSftJob } from './run-sft-job.ts';

export async function runJob(env: JobEnvironment, config: TrainingJobConfig, ctx: JobContext): Promise<void> {
  // Checked again on the real paths (symlinks resolved) the job then opens.
  const c = openJobPaths(config, env.roots, env.runAs);
  return c.kind === 'sft' ? runSftJob(env, c, ctx) : runRlJob(env, c, ctx);
}
