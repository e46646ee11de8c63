import { describe, expect, it } from 'vitest';
import { followJobEvents, toServerSentEvent, type JobEventSource } from './follow-job-events.ts';
import { isFinal, JobState, type JobEvent, type StepMetrics } from './job-events.ts';
import { JobManager, type JobContext, type JobView } from './job-manager.ts';

// Synchronised with gates (Promise.withResolvers) and the generator's own steps; nothing sleeps.

const metrics = (step: number): StepMetrics => ({ step, 'critic/score/mean': step / 10 });
const stepEvent = (step: number): JobEvent => ({ type: 'step', job: 'j', step, total_steps: 3, metrics: metrics(step) });

/** A manager whose one job `j` emits `steps` at once, then runs until `finish` resolves. */
function gatedJob(steps: number[]) {
  const finish = Promise.withResolvers<void>();
  let ctx: JobContext | undefined;
  const jobs = new JobManager<null>({
    run: (_config, c) => {
      ctx = c;
      for (const s of steps) c.emit(stepEvent(s));
      return finish.promise;
    },
  });
  jobs.submit(null, 'job', 'j');
  const ended = Promise.withResolvers<void>();
  jobs.subscribe('j', (e) => {
    if (e.type === 'state' && isFinal(e.state)) ended.resolve();
  });
  return { jobs, finish, ended: ended.promise, emit: (e: JobEvent) => ctx!.emit(e) };
}

/** Counts live subscriptions, to see that following always unsubscribes. */
function counting(source: JobEventSource) {
  let active = 0;
  const counted: JobEventSource = {
    get: (id) => source.get(id),
    metrics: (id) => source.metrics(id),
    subscribe: (id, listener) => {
      const stop = source.subscribe(id, listener);
      active++;
      return () => {
        active--;
        stop();
      };
    },
  };
  return { source: counted, active: () => active };
}

const view = (state: JobState): JobView => ({
  id: 'j',
  name: 'job',
  state,
  created_at: '',
  started_at: null,
  finished_at: null,
  step: 1,
  total_steps: 3,
  last_metrics: null,
  last_validation: null,
  error: null,
});

describe('followJobEvents', () => {
  it('replays the steps so far, then yields live events, and ends after the final state', async () => {
    const job = gatedJob([1, 2]);
    const { source, active } = counting(job.jobs);
    const events = followJobEvents(source, 'j', new AbortController().signal);
    expect((await events.next()).value).toEqual(stepEvent(1));
    expect((await events.next()).value).toEqual(stepEvent(2));
    const third = events.next(); // waits: nothing new yet
    job.emit(stepEvent(3));
    expect((await third).value).toEqual(stepEvent(3));
    job.finish.resolve();
    expect((await events.next()).value).toEqual({ type: 'state', job: 'j', state: JobState.Succeeded });
    expect(await events.next()).toEqual({ done: true, value: undefined });
    expect(active()).toBe(0);
  });

  it('gives a finished job its steps and its final state only', async () => {
    const job = gatedJob([1, 2]);
    job.finish.resolve();
    await job.ended;
    const seen: JobEvent[] = [];
    for await (const e of followJobEvents(job.jobs, 'j', new AbortController().signal)) seen.push(e);
    expect(seen).toEqual([stepEvent(1), stepEvent(2), { type: 'state', job: 'j', state: JobState.Succeeded }]);
  });

  it('does not send twice a step that arrived live while the replay was taken', async () => {
    let listener: ((e: JobEvent) => void) | undefined;
    const source: JobEventSource = {
      get: () => view(JobState.Running),
      // Step 1 is emitted after the subscription and before the metrics snapshot that also holds it.
      metrics: () => {
        listener!(stepEvent(1));
        return [metrics(1)];
      },
      subscribe: (_id, l) => {
        listener = l;
        return () => (listener = undefined);
      },
    };
    const events = followJobEvents(source, 'j', new AbortController().signal);
    expect((await events.next()).value).toEqual(stepEvent(1));
    const next = events.next(); // the live copy of step 1 is skipped; waits for step 2
    listener!(stepEvent(2));
    listener!({ type: 'state', job: 'j', state: JobState.Failed, error: 'boom' });
    expect((await next).value).toEqual(stepEvent(2));
    expect((await events.next()).value).toEqual({ type: 'state', job: 'j', state: JobState.Failed, error: 'boom' });
    expect((await events.next()).done).toBe(true);
    expect(listener).toBeUndefined();
  });

  it('stops and unsubscribes when the signal aborts (the client went away)', async () => {
    const job = gatedJob([]);
    const { source, active } = counting(job.jobs);
    const abort = new AbortController();
    const events = followJobEvents(source, 'j', abort.signal);
    const first = events.next(); // a running job with no steps: waits
    expect(active()).toBe(1);
    abort.abort();
    expect(await first).toEqual({ done: true, value: undefined });
    expect(active()).toBe(0);
    job.finish.resolve();
    await job.jobs.close();
  });

  it('unsubscribes when the consumer stops early (a failed write)', async () => {
    const job = gatedJob([1]);
    const { source, active } = counting(job.jobs);
    const events = followJobEvents(source, 'j', new AbortController().signal);
    expect((await events.next()).value).toEqual(stepEvent(1));
    await events.return();
    expect(active()).toBe(0);
    job.finish.resolve();
    await job.jobs.close();
  });
});

describe('toServerSentEvent', () => {
  it('names the event by its type and sends the NATS body as data', () => {
    expect(toServerSentEvent(stepEvent(2))).toEqual({ event: 'step', data: JSON.stringify(stepEvent(2)) });
  });
});
