import type { SelectiveRunner } from '../core/executor.ts';
import { IsolateRunner, canRunInIsolate } from './js-isolate.ts';

/** Catastrophic isolate failures (a fatal V8 OOM strands its thread) tolerated before the fast path is switched off. */
const MAX_CATASTROPHES = 4;

/**
 * The isolated-vm fast path, taking only JavaScript/TypeScript that needs no
 * Node built-ins or files. After repeated catastrophic isolate failures it stops
 * taking work, so JavaScript falls back to the native sandbox instead of failing.
 */
export function createFastRunner(memoryMb: number, onCatastrophe: (message: string, count: number) => void): SelectiveRunner {
  let catastrophes = 0;
  const isolate = new IsolateRunner({
    warmMemoryMb: [memoryMb],
    maxCatastrophes: MAX_CATASTROPHES,
    onCatastrophicError: (message) => onCatastrophe(message, ++catastrophes),
  });
  return {
    name: isolate.name,
    languages: () => isolate.languages(),
    canRun: (spec) => catastrophes < MAX_CATASTROPHES && canRunInIsolate(spec),
    run: (spec, signal) => isolate.run(spec, signal),
  };
}
