// Exit-status decoding and the memory verdict of a native run. No one sign of
// running out of memory is reliable (RLIMIT_AS exhaustion often shows as a
// crash; without a cgroup an OOM kill is just a SIGKILL), so several count.

const SIGABRT = 6;
const SIGKILL = 9;
const SIGBUS = 7;
const SIGSEGV = 11;
/** SIGXCPU: RLIMIT_CPU soft limit reached. */
export const SIGXCPU = 24;

/**
 * SandboxFusion's return code (Python's Popen value): -N for a death by signal
 * N, which bash and bwrap report as 128+N. A program that calls exit(137)
 * reads as -9; either way the code is non-zero.
 */
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

/**
 * True when the cgroup counted an OOM kill; a failed run's stderr has its
 * runtime's allocation-failure message (languages/); it died of a SIGKILL that
 * was neither our deadline nor RLIMIT_CPU (nothing else in the sandbox sends
 * one but the OOM killer, or the program itself); or, with a cgroup, it
 * crashed (SIGSEGV, SIGBUS, SIGABRT) after the run cgroup's peak grew by 90% of
 * the limit (growth: what it held at the start is not this run's). Without a
 * cgroup a crash cannot be told from a bad pointer, so it does not count.
 */
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
