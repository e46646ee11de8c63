/** Runs one task; may queue follow-up tasks with `push`. */
export type PoolWorker<T> = (task: T, push: (next: T) => void, signal: AbortSignal) => Promise<void>;

/**
 * Runs `tasks` (and any they push) with at most `concurrency` in flight. The
 * first failure stops new tasks, aborts the in-flight ones through their
 * signal, waits for them to settle, and rejects with that failure.
 */
export async function runPool<T>(tasks: readonly T[], concurrency: number, worker: PoolWorker<T>, parent?: AbortSignal): Promise<void> {
  const queue = [...tasks];
  const stop = new AbortController();
  const signal = parent === undefined ? stop.signal : AbortSignal.any([parent, stop.signal]);
  let failure: { error: unknown } | undefined;
  const push = (next: T) => queue.push(next);
  const lane = async (): Promise<void> => {
    for (;;) {
      if (failure !== undefined || signal.aborted) return;
      const task = queue.shift();
      if (task === undefined) return;
      try {
        await worker(task, push, signal);
      } catch (error) {
        failure ??= { error };
        stop.abort(error);
        return;
      }
    }
  };
  // Lanes end when the queue is empty; a task that pushes work while others idle is
  // picked up by the lane that pushed it, so nothing is stranded.
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  if (failure !== undefined) throw failure.error;
  parent?.throwIfAborted();
}
