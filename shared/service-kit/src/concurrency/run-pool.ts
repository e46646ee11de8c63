import PQueue from 'p-queue';

/** Runs one task; may queue follow-up tasks with `push`. */
export type PoolWorker<T> = (task: T, push: (next: T) => void, signal: AbortSignal) => Promise<void>;

/**
 * Runs `tasks` (and any they push) on a p-queue with at most `concurrency` in
 * flight. The first failure stops new tasks, aborts the in-flight ones through
 * their signal, waits for them to settle, and rejects with that failure.
 */
export async function runPool<T>(tasks: readonly T[], concurrency: number, worker: PoolWorker<T>, parent?: AbortSignal): Promise<void> {
  const queue = new PQueue({ concurrency: Math.max(1, concurrency) });
  const stop = new AbortController();
  const signal = parent === undefined ? stop.signal : AbortSignal.any([parent, stop.signal]);
  let failure: { error: unknown } | undefined;
  const push = (task: T): void => {
    // The task catches its own failure, so the promise p-queue returns never rejects.
    void queue.add(async () => {
      // Queued tasks are skipped rather than cleared: clear() would reject their promises.
      if (failure !== undefined || signal.aborted) return;
      try {
        await worker(task, push, signal);
      } catch (error) {
        failure ??= { error };
        stop.abort(error);
      }
    });
  };
  for (const task of tasks) push(task);
  await queue.onIdle();
  if (failure !== undefined) throw failure.error;
  parent?.throwIfAborted();
}
