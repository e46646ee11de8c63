import type { SelectiveRunner } from '../core/executor.ts';
import { IsolateRunner, canRunInIsolate, type IsolateRunnerOptions } from './js-isolate/index.ts';

/** The fast path as the executor sees it, plus shutdown. */
export interface FastRunner extends SelectiveRunner {
  /** Kills the worker processes and waits until they are gone. */
  close(): Promise<void>;
}

/**
 * The isolated-vm fast path, taking only JavaScript/TypeScript that needs no
 * Node built-ins or files. A worker process that is killed or dies is replaced;
 * only while no worker can be started at all does JavaScript go to the native
 * sandbox (the pool keeps retrying). Throws when prlimit(1) is missing.
 */
export function createFastRunner(options: IsolateRunnerOptions): FastRunner {
  const isolate = new IsolateRunner(options);
  return {
    name: isolate.name,
    languages: () => isolate.languages(),
    canRun: (spec) => isolate.available && canRunInIsolate(spec),
    run: (spec, signal) => isolate.run(spec, signal),
    close: () => isolate.close(),
  };
}
