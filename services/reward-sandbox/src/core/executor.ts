import { AppError, ErrorCode, type RunQueue } from '@rl/service-kit/core';
import type { RunOutcome, RunSpec, Runner } from './runner.ts';

/** A runner that only takes the runs it can do safely: a fast path (the isolated-vm runner, the python zygote). */
export interface SelectiveRunner extends Runner {
  canRun(spec: RunSpec): boolean;
}

/** Runs programs through the queue on the right back-end. */
export interface Executor {
  run(spec: RunSpec, signal?: AbortSignal): Promise<RunOutcome>;
  /** Each runnable language and the back-end that serves it by default. */
  languages(): Array<{ language: string; runner: string }>;
}

/**
 * Picks the back-end per run: the first fast path that can take the program
 * (isolated-vm for plain JavaScript, the python zygote), otherwise the native
 * sandbox; unsupported languages are a 400 naming them. Every run waits its
 * turn in the queue; its own deadline starts when it runs.
 */
export function createExecutor(native: Runner, queue: RunQueue, fast: readonly SelectiveRunner[] = []): Executor {
  const nativeLangs = new Set(native.languages());
  const fastLangs = fast.map((r) => new Set(r.languages()));
  const pick = (spec: RunSpec): Runner | undefined => {
    const i = fast.findIndex((r, k) => fastLangs[k]!.has(spec.language) && r.canRun(spec));
    return i >= 0 ? fast[i] : nativeLangs.has(spec.language) ? native : undefined;
  };
  return {
    run(spec, signal) {
      const runner = pick(spec);
      if (runner === undefined) {
        const known = [...new Set([...nativeLangs, ...fastLangs.flatMap((s) => [...s])])].sort().join(', ');
        return Promise.reject(
          new AppError(ErrorCode.UnsupportedLanguage, `language "${spec.language}" is not supported by this instance (supported: ${known})`),
        );
      }
      const ctl = new AbortController();
      const onAbort = () => ctl.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      // Picked again when the run starts: a fast path that was full when it arrived may have room now, and vice versa.
      return queue.run(() => (pick(spec) ?? runner).run(spec, ctl.signal), signal).finally(() => signal?.removeEventListener('abort', onAbort));
    },
    languages() {
      const out = new Map<string, string>();
      for (const l of nativeLangs) out.set(l, native.name);
      // Listed in reverse so the first fast path that takes a language names it.
      for (let k = fast.length - 1; k >= 0; k--) {
        for (const l of fastLangs[k]!) out.set(l, nativeLangs.has(l) ? `${fast[k]!.name} (falls back to ${native.name})` : fast[k]!.name);
      }
      return [...out].sort(([a], [b]) => a.localeCompare(b)).map(([language, runner]) => ({ language, runner }));
    },
  };
}

/**
 * A fast path that takes at most `max` runs at once; past that it declines
 * (`canRun` false) and the executor sends the run to the next back-end. For
 * the isolated-vm path, whose every concurrent run holds a worker process
 * (~95 MB): with more slots than cores, programs that wait on timers would
 * otherwise start a worker each.
 */
export function limitInFlight(runner: SelectiveRunner, max: number): SelectiveRunner {
  let inFlight = 0;
  return {
    name: runner.name,
    languages: () => runner.languages(),
    canRun: (spec) => inFlight < max && runner.canRun(spec),
    async run(spec, signal) {
      inFlight += 1;
      try {
        return await runner.run(spec, signal);
      } finally {
        inFlight -= 1;
      }
    },
  };
}
