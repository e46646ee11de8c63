// Entry point of every budget-pool worker thread: loads the batch module, then
// runs jobs item by item, publishing progress (item index, its budget and a
// sequence number) through shared memory so the main thread can tell which item
// overran its budget without exchanging a single message.
import { parentPort, workerData } from 'node:worker_threads';
import {
  PROGRESS_BUDGET,
  PROGRESS_INDEX,
  PROGRESS_SEQ,
  type BatchModule,
  type JobMessage,
  type JobReport,
  type ReadyMessage,
  type WorkerBoot,
} from './protocol.ts';

const boot = workerData as WorkerBoot;
const progress = new Int32Array(boot.progress);
const mod = (await import(boot.moduleUrl)) as Partial<BatchModule>;
for (const fn of ['open', 'count', 'budgetMs', 'run', 'skip', 'close'] as const) {
  if (typeof mod[fn] !== 'function') throw new Error(`${boot.moduleUrl} does not export ${fn}()`);
}
const batch = mod as BatchModule;
batch.init?.(boot.moduleData);

function runJob(job: JobMessage): JobReport {
  try {
    const state = batch.open(job.payload);
    const skipped = new Map(job.skip);
    const n = batch.count(state);
    for (let i = 0; i < n; i++) {
      const reason = skipped.get(i);
      if (reason !== undefined) {
        batch.skip(state, i, reason);
        continue;
      }
      Atomics.store(progress, PROGRESS_INDEX, i);
      Atomics.store(progress, PROGRESS_BUDGET, Math.min(batch.budgetMs(state, i), 2 ** 31 - 1));
      Atomics.add(progress, PROGRESS_SEQ, 1);
      batch.run(state, i);
    }
    Atomics.store(progress, PROGRESS_INDEX, -1);
    Atomics.add(progress, PROGRESS_SEQ, 1);
    return { type: 'report', jobId: job.jobId, ok: true, output: batch.close(state) };
  } catch (err) {
    const e = err as { code?: unknown; status?: unknown; message?: unknown; details?: unknown };
    return {
      type: 'report',
      jobId: job.jobId,
      ok: false,
      failure: {
        code: typeof e.code === 'string' ? e.code : 'internal',
        message: typeof e.message === 'string' ? e.message : String(err),
        status: typeof e.status === 'number' ? e.status : 500,
        details: typeof e.details === 'object' && e.details !== null ? (e.details as Record<string, unknown>) : undefined,
      },
    };
  }
}

parentPort?.on('message', (job: JobMessage) => parentPort?.postMessage(runJob(job)));
const ready: ReadyMessage = { type: 'ready' };
parentPort?.postMessage(ready);
