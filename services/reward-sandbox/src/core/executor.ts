import { AppError, ErrorCode } from '@rl/shared/errors';
import type { ExecQueue } from './exec-queue.ts';
import type { RunOutcome, RunSpec, Runner } from './runner.ts';

/** A runner that only takes the runs it can do safely (the isolated-vm fast path). */
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
 * Picks the back-end per run: the fast path when it can take the program,
 * otherwise the native sandbox; unsupported languages are a 400 naming them.
 * Every run waits its turn in the queue; its own deadline starts when it runs.
 */
export function createExecutor(native: Runner, queue: ExecQueue, fast?: SelectiveRunner): Executor {
  const nativeLangs = new Set(native.languages());
  const fastLangs = new Set(fast?.languages() ?? []);
  return {
    run(spec, signal) {
      const runner = fast !== undefined && fastLangs.has(spec.language) && fast.canRun(spec) ? fast : nativeLangs.has(spec.language) ? native : undefined;
      if (runner === undefined) {
        const known = [...new Set([...nativeLangs, ...fastLangs])].sort().join(', ');
        return Promise.reject(new AppError(ErrorCode.UnsupportedLanguage, `language "${spec.language}" is not supported by this instance (supported: ${known})`, { status: 400 }));
      }
      const ctl = new AbortController();
      const onAbort = () => ctl.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      return queue.run(() => runner.run(spec, ctl.signal), signal).finally(() => signal?.removeEventListener('abort', onAbort));
    },
    languages() {
      const out = new Map<string, string>();
      for (const l of nativeLangs) out.set(l, native.name);
      for (const l of fastLangs) out.set(l, nativeLangs.has(l) ? `${fast?.name} (falls back to ${native.name})` : (fast?.name ?? ''));
      return [...out].sort(([a], [b]) => a.localeCompare(b)).map(([language, runner]) => ({ language, runner }));
    },
  };
}
