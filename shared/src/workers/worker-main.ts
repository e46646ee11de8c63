// Entry point of every budget-pool worker thread: loads the task module, then
// computes jobs item by item, publishing progress through shared memory so the
// main thread can tell which item overran its budget without any message.
import { parentPort, workerData } from 'node:worker_threads';
import { PROGRESS_INDEX, PROGRESS_SEQ, type ItemReport, type JobMessage, type JobReport, type WorkerBoot } from './protocol.ts';

const boot = workerData as WorkerBoot;
const progress = new Int32Array(boot.progress);
const mod = (await import(boot.moduleUrl)) as { handle?: (input: unknown) => unknown };
const handle = mod.handle;
if (typeof handle !== 'function') throw new Error(`${boot.moduleUrl} does not export handle()`);

parentPort?.on('message', (job: JobMessage) => {
  const inputs = JSON.parse(job.inputsJson) as unknown[];
  const results: ItemReport[] = new Array(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    Atomics.store(progress, PROGRESS_INDEX, i);
    Atomics.add(progress, PROGRESS_SEQ, 1);
    try {
      results[i] = { ok: true, value: handle(inputs[i]) };
    } catch (err) {
      results[i] = { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
  }
  const report: JobReport = { jobId: job.jobId, resultsJson: JSON.stringify(results) };
  parentPort?.postMessage(report);
});
