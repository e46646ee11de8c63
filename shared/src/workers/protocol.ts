/** Slots of the per-worker progress array shared with the main thread. */
export const PROGRESS_SEQ = 0;
/** Index (within the current job) of the item the worker is computing. */
export const PROGRESS_INDEX = 1;

/**
 * Main thread -> worker: compute these inputs in order. The inputs travel as one
 * JSON string: cloning a single string is a memcpy, while structured-cloning
 * hundreds of small objects cost more than scoring them.
 */
export interface JobMessage {
  jobId: number;
  inputsJson: string;
}

/** One item's result as the worker reports it. */
export type ItemReport = { ok: true; value: unknown } | { ok: false; message: string };

/** Worker -> main thread: the results of a whole job (`ItemReport[]` as JSON, for the same reason). */
export interface JobReport {
  jobId: number;
  resultsJson: string;
}

/** Data every worker is started with. */
export interface WorkerBoot {
  /** URL of a module exporting `handle(input: unknown): unknown`. */
  moduleUrl: string;
  progress: SharedArrayBuffer;
}
