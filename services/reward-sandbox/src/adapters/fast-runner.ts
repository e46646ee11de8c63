import type { SelectiveRunner } from '../core/executor.ts';
import { IsolateRunner, canRunInIsolate } from './js-isolate.ts';

/** The isolated-vm fast path, taking only JavaScript/TypeScript that needs no Node built-ins or files. */
export function createFastRunner(memoryMb = 1024): SelectiveRunner {
  const isolate = new IsolateRunner({ warmMemoryMb: [memoryMb] });
  return {
    name: isolate.name,
    languages: () => isolate.languages(),
    canRun: canRunInIsolate,
    run: (spec, signal) => isolate.run(spec, signal),
  };
}
