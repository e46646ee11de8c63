// Memory limits of the fast path and how running out of memory is reported: the
// isolate's heap cap, and the result shape both the worker (heap limit, fatal V8
// OOM) and the service (a worker that died from its address-space limit) give.

const MIN_MEMORY_MB = 8;
const MAX_MEMORY_MB = 2048;

/** What Node prints when the V8 heap is exhausted; ends stderr of a run out of memory. */
export const OOM_MESSAGE = 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory';

/** Node aborts on heap exhaustion; a shell reports that as 128 + SIGABRT. */
export const OOM_EXIT_CODE = 134;

/**
 * Allocation failures a program may die of (uncaught), as Node prints them. The
 * first four are the bubblewrap runner's node markers (../native/languages/node.ts); the
 * WebAssembly ones are V8's when it cannot grow or create a memory (the isolate
 * has no WebAssembly, so they only matter if the worker's address space runs out).
 */
export const MEMORY_MARKERS: readonly RegExp[] = [
  /JavaScript heap out of memory/,
  /Fatal process out of memory/,
  /Array buffer allocation failed/,
  /Cannot allocate memory/,
  /WebAssembly\.Memory(\.grow)?\(\): (Unable to grow instance memory|could not allocate memory)/,
];

/** Clamps a memory limit in MiB to what an isolate accepts and this service allows. */
export function clampMemory(mb: number): number {
  if (!Number.isFinite(mb)) return 256;
  return Math.min(MAX_MEMORY_MB, Math.max(MIN_MEMORY_MB, Math.round(mb)));
}

/**
 * The memory limit a worker process is started for (its address-space budget):
 * the run's limit rounded up to a power of two, at least 64 MiB. Workers are
 * kept per limit, so exact limits would make every unusual memory_limit_MB
 * start a worker (~0.3 s); each run's isolate still caps the heap and
 * ArrayBuffers at the run's own limit.
 */
export function workerMemoryMb(memoryMb: number): number {
  return Math.max(64, 2 ** Math.ceil(Math.log2(memoryMb)));
}

/** The stderr tail appended when a run is stopped by the memory limit. */
export function outOfMemoryNotice(memoryMb: number): string {
  return `\n<--- sandbox memory limit of ${memoryMb} MiB reached --->\n${OOM_MESSAGE}\n`;
}

/** True when a failed run's stderr shows that an allocation failed. */
export function diedOfAllocationFailure(returnCode: number | null, stderr: string): boolean {
  return returnCode !== 0 && returnCode !== null && MEMORY_MARKERS.some((m) => m.test(stderr));
}
