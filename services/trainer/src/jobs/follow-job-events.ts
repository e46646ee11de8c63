// Following one job (GET /v1/jobs/:id/metrics as server-sent events): the
// steps it has already made, then its live events, until its final state. The
// HTTP route only writes what this yields, so the ordering rules are tested
// here without a server.
import { isFinal, type JobEvent, type StepMetrics } from './job-events.ts';
import type { JobView } from './job-manager.ts';

/** What following needs from the job manager. */
export interface JobEventSource {
  get(id: string): JobView;
  metrics(id: string): StepMetrics[];
  subscribe(id: string, listener: (e: JobEvent) => void): () => void;
}

/**
 * Yields job `id`'s past steps (as `step` events), then its live events, and returns after its final
 * `state` event or when `signal` aborts. A job already final yields its steps and that state only.
 */
export async function* followJobEvents(source: JobEventSource, id: string, signal: AbortSignal): AsyncGenerator<JobEvent, void, undefined> {
  // Subscribe before replaying, so no event falls between the two.
  const pending: JobEvent[] = [];
  let wake: (() => void) | null = null;
  const stop = source.subscribe(id, (e) => {
    pending.push(e);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    // Taken after subscribing: a job that ends from here on also sends its final state event.
    const now = source.get(id);
    let replayed = -1;
    for (const m of source.metrics(id)) {
      // A job with steps has had a step event, which set total_steps; the fallback is never used.
      yield { type: 'step', job: id, step: m.step, total_steps: now.total_steps ?? 0, metrics: m };
      replayed = m.step;
    }
    let final = isFinal(now.state);
    if (final) yield { type: 'state', job: id, state: now.state };
    while (!final && !signal.aborted) {
      if (pending.length === 0) await new Promise<void>((r) => (wake = r));
      wake = null;
      for (const e of pending.splice(0)) {
        if (e.type === 'step' && e.step <= replayed) continue; // already sent by the replay
        yield e;
        if (e.type === 'state' && isFinal(e.state)) final = true;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop();
  }
}

/** The server-sent event of a job event: named by its type, its JSON body as the data. */
export const toServerSentEvent = (e: JobEvent): { event: JobEvent['type']; data: string } => ({ event: e.type, data: JSON.stringify(e) });
