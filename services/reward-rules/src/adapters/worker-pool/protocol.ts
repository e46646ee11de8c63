/** Slots of the per-worker progress array shared with the main thread. */
export const PROGRESS_SEQ = 0;
/** Index (within the current job) of the item the worker is computing. */
export const PROGRESS_INDEX = 1;
/** Time budget, in ms, of the item being computed. */
export const PROGRESS_BUDGET = 2;
/** Length of the progress array. */
export const PROGRESS_SLOTS = 3;

/** Why an item was not computed normally. */
export type SkipReason = 'timeout' | 'crashed';

/** Main thread -> worker: run one batch, skipping items that already failed in an earlier attempt. */
export interface JobMessage {
  jobId: number;
  payload: Uint8Array | string;
  skip: Array<[index: number, reason: SkipReason]>;
}

/** A failure the worker reports for the whole job (e.g. the payload is invalid). */
export interface JobFailure {
  code: string;
  message: string;
  status: number;
  details?: Record<string, unknown> | undefined;
}

/** Worker -> main thread: the batch's output, or why the whole job failed. */
export type JobReport = { type: 'report'; jobId: number; ok: true; output: unknown } | { type: 'report'; jobId: number; ok: false; failure: JobFailure };

/** Worker -> main thread: the module is loaded and initialised. */
export interface ReadyMessage {
  type: 'ready';
}

/** Data every worker is started with. */
export interface WorkerBoot {
  /** URL of a module implementing {@link BatchModule}. */
  moduleUrl: string;
  /** Handed to the module's `init()` once, e.g. its configuration. */
  moduleData: unknown;
  progress: SharedArrayBuffer;
}

/**
 * What a pool worker module exports. The worker parses the whole payload itself
 * (`open`), so the main thread never touches per-item data: it only moves bytes.
 */
export interface BatchModule<S = unknown> {
  /** Optional one-time set-up with the pool's `moduleData`. */
  init?(data: unknown): void;
  /** Parses and validates a payload; throwing fails the job with the error's code and status. */
  open(payload: Uint8Array | string): S;
  /** Number of items in the batch. */
  count(state: S): number;
  /** Time budget of item `index`, in ms. */
  budgetMs(state: S, index: number): number;
  /** Computes item `index` and records its result in `state`. Must be deterministic. */
  run(state: S, index: number): void;
  /** Records that item `index` was abandoned in an earlier attempt. */
  skip(state: S, index: number, reason: SkipReason): void;
  /** The batch's output, sent back to the main thread (prefer a string: cloning it is a memcpy). */
  close(state: S): unknown;
}
