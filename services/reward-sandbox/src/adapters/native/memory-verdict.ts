// Exit-status decoding and the memory-limit verdict.
//
// A process killed by a signal reaches us as 128+N (bash and bwrap both encode it
// that way); SandboxFusion reports Python's Popen value, -N, so we map 129..192
// back to -1..-64. (A program that literally calls exit(137) is reported as -9;
// either way the code is non-zero.)
//
// memory_limit_exceeded is true when any of these holds:
//  1. the cgroup (if in use) counted an OOM kill during the command;
//  2. it failed (non-zero code) and stderr carries the runtime's allocation-failure message (languages/:
//     MemoryError, std::bad_alloc, "JavaScript heap out of memory",
//     "runtime: out of memory", "Cannot allocate memory", ...);
//  3. it died of SIGKILL that was neither our wall-clock kill nor the RLIMIT_CPU
//     hard limit: nothing else in the sandbox sends SIGKILL except the kernel OOM
//     killer (or the program itself);
//  4. with a cgroup, it died of SIGSEGV/SIGBUS/SIGABRT while the cgroup's peak
//     usage grew by 90% of the memory limit during the run (growth: what the slot
//     held at the start - its zygote, pages an earlier run's teardown had not
//     returned yet - is not this run's) (RLIMIT_AS exhaustion often shows up
//     as a crash: malloc returns NULL, the stack cannot grow). Without a cgroup a
//     crash is not counted: we cannot tell it from an ordinary bad pointer.

const SIGABRT = 6;
const SIGKILL = 9;
const SIGBUS = 7;
const SIGSEGV = 11;
/** SIGXCPU: RLIMIT_CPU soft limit reached. */
export const SIGXCPU = 24;

/** SandboxFusion-style return code: negative signal number for signal deaths. */
export function decodeReturnCode(status: number): number {
  return status > 128 && status <= 128 + 64 ? -(status - 128) : status;
}

/** What we know about how a command ended. */
export interface MemoryEvidence {
  /** Decoded return code (negative: killed by that signal). */
  returnCode: number | null;
  stderr: string;
  markers: RegExp[];
  /** We killed it (deadline or abort). */
  killedByUs: boolean;
  /** Its CPU time reached the RLIMIT_CPU soft limit. */
  cpuLimitReached: boolean;
  memoryLimitMb: number;
  cgroup: { oomKills: number; peakBytes: number | null; startBytes?: number | null } | null;
}

/** The memory verdict (rules in the file comment). */
export function memoryLimitExceeded(e: MemoryEvidence): boolean {
  if (e.cgroup !== null && e.cgroup.oomKills > 0) return true;
  if (e.returnCode !== 0 && e.markers.some((m) => m.test(e.stderr))) return true;
  const signal = e.returnCode !== null && e.returnCode < 0 ? -e.returnCode : null;
  if (signal === SIGKILL && !e.killedByUs && !e.cpuLimitReached) return true;
  const crashed = signal === SIGSEGV || signal === SIGBUS || signal === SIGABRT;
  const peak = e.cgroup?.peakBytes ?? null;
  const grown = peak === null ? null : peak - (e.cgroup?.startBytes ?? 0);
  return crashed && grown !== null && grown >= 0.9 * e.memoryLimitMb * 1024 * 1024;
}

/** The run hit RLIMIT_CPU: SIGXCPU at the soft limit, or SIGKILL at the hard one (its CPU time reached the limit). */
export function cpuLimitReached(returnCode: number | null, cpuSeconds: number, limitSeconds: number): boolean {
  return returnCode === -SIGXCPU || (returnCode === -SIGKILL && cpuSeconds >= limitSeconds);
}
