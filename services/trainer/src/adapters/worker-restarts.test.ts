import { AppError, ErrorCode } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore, TrainerState } from '../core/controller/trainer-state.ts';
import { MAX_WORKER_RESTARTS, withWorkerRestarts, workerExitedError } from './worker-restarts.ts';

const state = (step: number): TrainerState => ({ step, version: `v${step}`, kl_coef: null, sampler: { epoch: 0, index: step } });

/** An in-memory store whose latest pointer starts at `old` (a checkpoint from before the run). */
function memoryStore(old: TrainerState | null) {
  let latest = old;
  const store: CheckpointStore = {
    workerDir: (step) => `/ckpt/global_step_${step}`,
    commit: async (s) => {
      latest = s;
      return `/ckpt/global_step_${s.step}`;
    },
    latest: async () => latest,
  };
  return store;
}

function context() {
  const logs: string[] = [];
  return { ctx: { id: 'job', signal: new AbortController().signal, emit: (e: { type: string; message?: string }) => logs.push(e.message ?? e.type) }, logs };
}

describe('withWorkerRestarts', () => {
  it('after a worker death runs again from the newest checkpoint the run committed', async () => {
    const { ctx, logs } = context();
    const starts: Array<number | null> = [];
    await withWorkerRestarts(ctx, memoryStore(state(40)), null, async (resume, checkpoints) => {
      starts.push(resume?.step ?? null);
      if (starts.length === 1) {
        await checkpoints.commit(state(3));
        throw workerExitedError('SIGKILL');
      }
    });
    expect(starts).toEqual([null, 3]);
    expect(logs).toEqual(['policy worker exited (SIGKILL): starting a new policy worker from the checkpoint of step 3 (restart 1 of 2)']);
  });

  it('ignores a checkpoint the run did not write (an old job in the same directory) and starts where the run started', async () => {
    const { ctx } = context();
    const starts: Array<number | null> = [];
    await withWorkerRestarts(ctx, memoryStore(state(40)), null, async (resume) => {
      starts.push(resume?.step ?? null);
      if (starts.length === 1) throw workerExitedError('1');
    });
    expect(starts).toEqual([null, null]);
  });

  it('gives up after the allowed restarts, and never retries other errors', async () => {
    const { ctx } = context();
    let runs = 0;
    await expect(
      withWorkerRestarts(ctx, memoryStore(null), null, async () => {
        runs++;
        throw workerExitedError('1');
      }),
    ).rejects.toThrow(/policy worker exited/);
    expect(runs).toBe(MAX_WORKER_RESTARTS + 1);
    runs = 0;
    await expect(
      withWorkerRestarts(ctx, memoryStore(null), null, async () => {
        runs++;
        throw new AppError(ErrorCode.Unavailable, 'reward service away');
      }),
    ).rejects.toThrow(/reward service away/);
    expect(runs).toBe(1);
  });

  it('does not restart a cancelled job', async () => {
    const { ctx } = context();
    const abort = new AbortController();
    let runs = 0;
    await expect(
      withWorkerRestarts({ ...ctx, signal: abort.signal }, memoryStore(null), null, async () => {
        runs++;
        abort.abort();
        throw workerExitedError('SIGTERM');
      }),
    ).rejects.toThrow(/policy worker exited/);
    expect(runs).toBe(1);
  });
});
