// Jobs of this trainer instance: submitted, run one at a time (a job owns the
// CPU its policy worker trains on), observed through events, cancelled on
// request. The controller itself is injected, so this file knows nothing of RL.
import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode } from '@rl/service-kit';
import { JobState, isFinal, type JobEvent, type StepMetrics } from './job-events.ts';

/** What the runner gets for one job. */
export interface JobContext {
  id: string;
  signal: AbortSignal;
  emit(event: JobEvent): void;
}

/** Runs one job to the end (resolves) or fails (rejects); must stop promptly when `signal` aborts. */
export type JobRunner<C> = (config: C, ctx: JobContext) => Promise<void>;

/** Public view of a job. */
export interface JobView {
  id: string;
  name: string;
  state: JobState;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  step: number;
  total_steps: number | null;
  last_metrics: StepMetrics | null;
  last_validation: Record<string, number> | null;
  error: string | null;
}

interface Job<C> {
  view: JobView;
  config: C;
  metrics: StepMetrics[];
  controller: AbortController;
  listeners: Set<(e: JobEvent) => void>;
}

/** Options of {@link JobManager}. */
export interface JobManagerOptions<C> {
  run: JobRunner<C>;
  /** Called for every event of every job (NATS publishing). */
  onEvent?: (e: JobEvent) => void;
  /** Finished jobs kept for GET. @default 100 */
  keepFinished?: number;
}

/** The jobs of this instance. */
export class JobManager<C> {
  readonly #jobs = new Map<string, Job<C>>();
  readonly #queue: Array<Job<C>> = [];
  readonly #opts: JobManagerOptions<C>;
  #running: Job<C> | null = null;
  #idle: Promise<void> = Promise.resolve();

  constructor(options: JobManagerOptions<C>) {
    this.#opts = options;
  }

  /** Queues a job; it starts when no other job runs. */
  submit(config: C, name: string, id: string = randomUUID().slice(0, 8)): JobView {
    if (this.#jobs.has(id)) throw new AppError(ErrorCode.Conflict, `job ${id} already exists`);
    const now = new Date().toISOString();
    const job: Job<C> = {
      view: {
        id,
        name,
        state: JobState.Queued,
        created_at: now,
        started_at: null,
        finished_at: null,
        step: 0,
        total_steps: null,
        last_metrics: null,
        last_validation: null,
        error: null,
      },
      config,
      metrics: [],
      controller: new AbortController(),
      listeners: new Set(),
    };
    this.#jobs.set(id, job);
    this.#queue.push(job);
    this.#emit(job, { type: 'state', job: id, state: JobState.Queued });
    this.#pump();
    this.#prune();
    return { ...job.view };
  }

  get(id: string): JobView {
    return { ...this.#job(id).view };
  }

  list(): JobView[] {
    return [...this.#jobs.values()].map((j) => ({ ...j.view }));
  }

  /** Every step's metrics so far. */
  metrics(id: string): StepMetrics[] {
    return [...this.#job(id).metrics];
  }

  /** Listens to one job's events; returns the unsubscribe function. */
  subscribe(id: string, listener: (e: JobEvent) => void): () => void {
    const job = this.#job(id);
    job.listeners.add(listener);
    return () => job.listeners.delete(listener);
  }

  /** Cancels a queued or running job (a running one stops at its next check and keeps its checkpoints). */
  cancel(id: string): JobView {
    const job = this.#job(id);
    if (isFinal(job.view.state)) return { ...job.view };
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      this.#finish(job, JobState.Cancelled, null);
    } else {
      job.controller.abort(new AppError(ErrorCode.Conflict, 'job cancelled'));
    }
    return { ...job.view };
  }

  /** Cancels everything and waits for the running job to stop (service shutdown). */
  async close(): Promise<void> {
    for (const job of [...this.#queue]) this.cancel(job.view.id);
    if (this.#running !== null) this.cancel(this.#running.view.id);
    await this.#idle;
  }

  #job(id: string): Job<C> {
    const job = this.#jobs.get(id);
    if (job === undefined) throw new AppError(ErrorCode.NotFound, `no job ${id}`);
    return job;
  }

  #pump(): void {
    if (this.#running !== null) return;
    const job = this.#queue.shift();
    if (job === undefined) return;
    this.#running = job;
    job.view.state = JobState.Running;
    job.view.started_at = new Date().toISOString();
    this.#emit(job, { type: 'state', job: job.view.id, state: JobState.Running });
    const ctx: JobContext = { id: job.view.id, signal: job.controller.signal, emit: (e) => this.#emit(job, e) };
    this.#idle = this.#opts
      .run(job.config, ctx)
      .then(
        () => this.#finish(job, job.controller.signal.aborted ? JobState.Cancelled : JobState.Succeeded, null),
        (err: unknown) =>
          this.#finish(job, job.controller.signal.aborted ? JobState.Cancelled : JobState.Failed, err instanceof Error ? err.message : String(err)),
      )
      .finally(() => {
        this.#running = null;
        this.#pump();
      });
  }

  #finish(job: Job<C>, state: JobState, error: string | null): void {
    job.view.state = state;
    job.view.error = error;
    job.view.finished_at = new Date().toISOString();
    this.#emit(job, error === null ? { type: 'state', job: job.view.id, state } : { type: 'state', job: job.view.id, state, error });
  }

  #emit(job: Job<C>, e: JobEvent): void {
    if (e.type === 'step') {
      job.metrics.push(e.metrics);
      job.view.step = e.step;
      job.view.total_steps = e.total_steps;
      job.view.last_metrics = e.metrics;
    } else if (e.type === 'validation') {
      job.view.last_validation = e.metrics;
    }
    for (const l of job.listeners) l(e);
    this.#opts.onEvent?.(e);
  }

  #prune(): void {
    const keep = this.#opts.keepFinished ?? 100;
    const finished = [...this.#jobs.values()].filter((j) => isFinal(j.view.state));
    for (const j of finished.slice(0, Math.max(0, finished.length - keep))) this.#jobs.delete(j.view.id);
  }
}
