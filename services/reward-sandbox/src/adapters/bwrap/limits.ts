// Resource limits for one sandboxed command, applied with bash's `ulimit`
// builtin in a subshell that then execs the command (same effect as prlimit,
// without another exec). Hard limits are set, so the program cannot raise them.

/** rlimits for one command. */
export interface Limits {
  /** RLIMIT_AS in MiB (virtual address space, per process). */
  addressSpaceMb: number;
  /** RLIMIT_CPU soft limit in seconds (SIGXCPU); the hard limit (SIGKILL) is one second later. */
  cpuSeconds: number;
  /** RLIMIT_NPROC: tasks (processes and threads) of the sandbox uid in this sandbox's user namespace. */
  processes: number;
  /** RLIMIT_FSIZE in bytes: largest file the command may write (SIGXFSZ beyond). */
  fileBytes: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
  /** RLIMIT_STACK in MiB (main-thread stack; also glibc's default thread stack size). */
  stackMb: number;
}

/** Defaults shared by every command; the per-language table overrides address space and stack. */
export const BASE_LIMITS = {
  processes: 64,
  fileBytes: 64 * 1024 * 1024,
  openFiles: 1024,
  stackMb: 8,
} as const;

/** Whole seconds for RLIMIT_CPU: wall timeout + 1 s, rounded up (the wall-clock deadline normally fires first). */
export function cpuSecondsFor(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000) + 1);
}

/** The `ulimit` commands (bash builtin units: KiB for -v/-s/-f, seconds for -t). */
export function ulimitScript(l: Limits): string {
  const kib = (mb: number) => Math.max(1, Math.floor(mb * 1024));
  return [
    `ulimit -c 0`,
    // Soft first: lowering the hard limit below the current (unlimited) soft one fails.
    `ulimit -S -t ${l.cpuSeconds}`,
    `ulimit -H -t ${l.cpuSeconds + 1}`,
    `ulimit -v ${kib(l.addressSpaceMb)}`,
    `ulimit -s ${kib(l.stackMb)}`,
    `ulimit -f ${Math.max(1, Math.floor(l.fileBytes / 1024))}`,
    `ulimit -n ${l.openFiles}`,
    `ulimit -u ${l.processes}`,
  ].join(' && ');
}
