// What a worker's death during a run means for that run. Killed by the service:
// the deadline (TimeLimitExceeded), an abort or shutdown. Died on its own: the
// memory limit when the evidence says so (the same rules as the native runner's
// ../../native/memory-verdict.ts: an allocation-failure message on stderr, or a SIGKILL nobody
// here sent, which only the kernel's OOM killer does), otherwise a crash of the
// sandbox itself.

import { MEMORY_MARKERS } from '../memory.ts';
import type { WorkerExit } from './worker-process.ts';

/** Kill reasons the service gives (worker-process.ts `kill`). */
export const KillReason = {
  Deadline: 'deadline',
  Abort: 'abort',
  Close: 'close',
} as const;

/** How a run whose worker is gone ends. */
export type ExitVerdict = 'time-limit' | 'memory-limit' | 'aborted' | 'closed' | 'crashed';

// V8 and Node print these when the process itself (not just an isolate) cannot allocate.
const PROCESS_OOM_MARKERS: readonly RegExp[] = [...MEMORY_MARKERS, /out of memory/i, /std::bad_alloc/];

/** The verdict for a run whose worker exited before answering. */
export function exitVerdict(exit: WorkerExit): ExitVerdict {
  if (exit.killedFor === KillReason.Deadline) return 'time-limit';
  if (exit.killedFor === KillReason.Abort) return 'aborted';
  if (exit.killedFor === KillReason.Close) return 'closed';
  if (exit.killedFor !== null) return 'crashed';
  if (exit.signal === 'SIGKILL' || PROCESS_OOM_MARKERS.some((m) => m.test(exit.stderrTail))) return 'memory-limit';
  return 'crashed';
}
