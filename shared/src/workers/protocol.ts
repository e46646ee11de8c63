/** Slots of the per-worker progress array shared with the main thread. */
export const PROGRESS_SEQ = 0;
/** Index (within the current job) of the item the worker is computing. */
export const PROGRESS_INDEX = 1;

/** Main thread -> worker: compute these inputs in order. */
export interface JobMessage {
  jobId: number;
  inputs: unknown[];
}

/** One item's result as the worker reports it. */
export type ItemReport = { ok: true; value: unknown } | { ok: false; message: string };

/** Worker -> main thread: the results of a whole job, in input order. */
export interface JobReport {
  jobId: number;
  results: ItemReport[];
}

/** Data every worker is started with. */
export interface WorkerBoot {
  /** URL of a module exporting `handle(input: unknown): unknown`. */
  moduleUrl: string;
  progress: SharedArrayBuffer;
}
