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

/**
 * Inode caps of the run's tmpfs mounts (`nr_inodes=`). Without one a tmpfs
 * allows about half of RAM in pages worth of inodes: 300,000 empty files cost
 * the host ~370 MB of slab while the tmpfs reports 0 bytes used. About 1.2 KiB
 * of slab each, so these cap the run's inode memory at ~80 MB and ~5 MB.
 */
export const TMPFS_INODES = { tmp: 65_536, shm: 4_096 } as const;

/**
 * SysV IPC limits of each run's IPC namespace (per-namespace sysctls under
 * /proc/sys/kernel). Shared memory is capped at the /dev/shm budget, so SysV
 * segments (which outlive their creator, attached or not) cannot hold more than
 * POSIX shared memory may; message queues and semaphores get a few MiB at most.
 * The defaults of a new namespace are effectively unlimited for shm.
 */
export function ipcSysctls(shmBytes: number): Record<string, string> {
  const page = 4096; // shmall counts pages; x86-64 and arm64 (4 KiB) hosts
  return {
    'kernel/shmmax': String(shmBytes),
    'kernel/shmall': String(Math.ceil(shmBytes / page)),
    'kernel/shmmni': '64',
    'kernel/msgmax': '8192',
    'kernel/msgmnb': '65536',
    'kernel/msgmni': '16',
    'kernel/sem': '250 8000 32 32', // SEMMSL SEMMNS SEMOPM SEMMNI
  };
}
