// A job that succeeded leaves its final models at fixed paths of its
// directory (hf_model/, hf_critic/): copies of its last checkpoint's Hugging
// Face directories, announced in the job's log.
import type { JobContext } from '../jobs/job-manager.ts';
import { exportFinalModels } from './checkpoint-store.ts';

export async function announceFinalModels(dir: string, ctx: JobContext): Promise<void> {
  for (const path of await exportFinalModels(dir)) ctx.emit({ type: 'log', job: ctx.id, message: `final model (Hugging Face directory): ${path}` });
}
