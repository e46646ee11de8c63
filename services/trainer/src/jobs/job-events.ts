// What a job tells the world, in order: on NATS `trainer.events.<job>`, to SSE
// subscribers of GET /v1/jobs/:id/metrics, and to the CLI.

/** Lifecycle states of a job. */
export const JobState = {
  Queued: 'queued',
  Running: 'running',
  Succeeded: 'succeeded',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const;
export type JobState = (typeof JobState)[keyof typeof JobState];

/** Terminal states: nothing follows them. */
export const isFinal = (s: JobState) => s === JobState.Succeeded || s === JobState.Failed || s === JobState.Cancelled;

/** One step's metrics (verl key names; see metrics/). */
export type StepMetrics = Record<string, number> & { step: number };

export type JobEvent =
  | { type: 'state'; job: string; state: JobState; error?: string }
  | { type: 'step'; job: string; step: number; total_steps: number; metrics: StepMetrics }
  | { type: 'validation'; job: string; step: number; metrics: Record<string, number> }
  | { type: 'checkpoint'; job: string; step: number; dir: string }
  | { type: 'log'; job: string; message: string };

/** Subject of a job's events. */
export const eventsSubject = (job: string) => `trainer.events.${job}`;
