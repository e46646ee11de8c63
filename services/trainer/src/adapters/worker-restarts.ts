// A job outlives its policy worker: when the worker process dies mid-job (its
// engine crashed, was killed, ran out of memory), the job starts a new worker
// from the newest checkpoint this run committed (or from the run's starting
// point when it committed none yet) and carries on from that step. The steps
// after that checkpoint run again: the batch order, rollout seeds and update
// seeds are derived from the step, so they are the same steps. A bounded
// number of restarts, then the worker's error ends the job.
import { AppError, ErrorCode } from '@rl/service-kit';
import type { CheckpointStore, TrainerState } from '../core/controller/trainer-state.ts';
import type { JobContext } from '../jobs/job-manager.ts';

/** Worker restarts one job allows. */
export const MAX_WORKER_RESTARTS = 2;

/** Marks the error a call gets once the worker process has exited. */
export function workerExitedError(how: string): AppError {
  return new AppError(ErrorCode.Unavailable, `policy worker exited (${how})`, { details: { worker_exited: true } });
}

function isWorkerExit(err: unknown): err is AppError {
  return err instanceof AppError && (err.details as { worker_exited?: unknown } | undefined)?.worker_exited === true;
}

/**
 * Runs `attempt` from `start` (the checkpoint the job resumes from, or null),
 * and after a worker death runs it again from the newest checkpoint the run
 * committed through the store `attempt` is handed.
 */
export async function withWorkerRestarts(
  ctx: Pick<JobContext, 'id' | 'emit' | 'signal'>,
  checkpoints: CheckpointStore,
  start: TrainerState | null,
  attempt: (resume: TrainerState | null, checkpoints: CheckpointStore) => Promise<void>,
): Promise<void> {
  let committed = false;
  const tracked: CheckpointStore = {
    workerDir: (step) => checkpoints.workerDir(step),
    commit: async (state) => {
      const dir = await checkpoints.commit(state);
      committed = true;
      return dir;
    },
    latest: () => checkpoints.latest(),
  };
  let resume = start;
  for (let restarts = 0; ; restarts++) {
    try {
      await attempt(resume, tracked);
      return;
    } catch (err) {
      if (!isWorkerExit(err) || ctx.signal.aborted || restarts >= MAX_WORKER_RESTARTS) throw err;
      // A checkpoint from before this run (resume_mode disable over an old job directory) is not this run's.
      if (committed) resume = await checkpoints.latest();
      const from = resume === null ? 'the start' : `the checkpoint of step ${resume.step}`;
      ctx.emit({
        type: 'log',
        job: ctx.id,
        message: `${err.message}: starting a new policy worker from ${from} (restart ${restarts + 1} of ${MAX_WORKER_RESTARTS})`,
      });
    }
  }
}
