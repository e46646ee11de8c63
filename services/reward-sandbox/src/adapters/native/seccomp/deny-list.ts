// The system calls no sandboxed program may make, the one place they are listed.
// Every back-end loads the same filter built from this list (filter.ts), so a
// change here changes all of them. The filter allows everything else: a test
// program needs the ordinary file, memory, thread and process calls, and the
// namespaces, rlimits and dropped capabilities already bound those.
//
// Sources: what Docker's and containerd's default profiles refuse to a container
// without capabilities, narrowed to what a competitive-programming or unit-test
// program never needs, plus the calls that cross the one boundary all sandboxes
// share (they run under the same host uid 65534): the kernel keyring and other
// processes' memory and file descriptors.
//
// Each call answers with an errno, never a kill, so a program that probes for a
// feature sees an ordinary error: EPERM for what an unprivileged process would be
// refused anyway, ENOSYS where a kernel without the feature would say that (the
// answer libraries fall back on, e.g. liburing, glibc's clone3).

/** The errno a denied call returns. */
export const DenyErrno = { EPERM: 'EPERM', ENOSYS: 'ENOSYS' } as const;
/** Union of the errnos a rule may return. */
export type DenyErrno = (typeof DenyErrno)[keyof typeof DenyErrno];

/** One denied system call. */
export interface DenyRule {
  /** Name as libseccomp (and the kernel's syscall table) spells it. */
  readonly syscall: string;
  readonly errno: DenyErrno;
  /** Why no program may make it (for the README and start-up logs). */
  readonly why: string;
  /**
   * Deny only when argument 0 has any of these bits set (one rule per bit);
   * omitted means always. Argument 0 is clone's flags on x86_64 and arm64.
   */
  readonly whenArg0HasAnyOf?: readonly number[];
}

// clone(2) flags that create namespaces: the same thing unshare(2) does.
// (CLONE_NEWTIME only works through clone3 and unshare, both denied.)
const CLONE_NAMESPACE_FLAGS = [
  0x00020000, // CLONE_NEWNS
  0x02000000, // CLONE_NEWCGROUP
  0x04000000, // CLONE_NEWUTS
  0x08000000, // CLONE_NEWIPC
  0x10000000, // CLONE_NEWUSER
  0x20000000, // CLONE_NEWPID
  0x40000000, // CLONE_NEWNET
] as const;

const E = DenyErrno.EPERM;
const N = DenyErrno.ENOSYS;

/** Every denied call; the filter allows all others. */
export const DENY_LIST: readonly DenyRule[] = [
  // Shared state between sandboxes (all run as host uid 65534).
  { syscall: 'add_key', errno: E, why: "keys persist in the uid's keyring, readable by the next run" },
  { syscall: 'keyctl', errno: E, why: "links and reads another run's keyring (found in /proc/keys)" },
  { syscall: 'request_key', errno: E, why: 'keyring lookup and upcalls to user-space key helpers' },
  { syscall: 'ptrace', errno: E, why: 'controls the supervisor or another process of the same uid' },
  { syscall: 'process_vm_readv', errno: E, why: "reads another process's memory" },
  { syscall: 'process_vm_writev', errno: E, why: "writes another process's memory" },
  { syscall: 'pidfd_getfd', errno: E, why: "steals the supervisor's report socket to forge a result" },
  { syscall: 'process_madvise', errno: E, why: "advises on another process's memory" },
  { syscall: 'kcmp', errno: E, why: "compares another process's kernel objects (a ptrace-mode probe)" },
  // Namespaces and mounts: the sandbox's shape is fixed before the program starts.
  { syscall: 'unshare', errno: E, why: 'new namespaces reach kernel code written for privileged users' },
  { syscall: 'clone', errno: E, why: 'the same namespaces as unshare, when given namespace flags', whenArg0HasAnyOf: CLONE_NAMESPACE_FLAGS },
  { syscall: 'clone3', errno: N, why: 'its flags sit in memory a filter cannot read; glibc falls back to clone on ENOSYS' },
  { syscall: 'setns', errno: E, why: 'joins another namespace' },
  { syscall: 'mount', errno: E, why: 'changes the filesystem view' },
  { syscall: 'umount2', errno: E, why: 'uncovers what a mount hides' },
  { syscall: 'pivot_root', errno: E, why: 'replaces the root filesystem' },
  { syscall: 'chroot', errno: E, why: 'changes the root directory' },
  { syscall: 'open_tree', errno: E, why: 'new mount API: detaches and clones mounts' },
  { syscall: 'move_mount', errno: E, why: 'new mount API: attaches mounts' },
  { syscall: 'fsopen', errno: E, why: 'new mount API: creates a filesystem context' },
  { syscall: 'fsconfig', errno: E, why: 'new mount API: configures a filesystem context' },
  { syscall: 'fsmount', errno: E, why: 'new mount API: turns a context into a mount' },
  { syscall: 'fspick', errno: E, why: 'new mount API: reconfigures an existing mount' },
  { syscall: 'mount_setattr', errno: E, why: 'new mount API: changes mount flags' },
  { syscall: 'open_by_handle_at', errno: E, why: 'opens files by handle, bypassing the mount view (the "shocker" escape)' },
  { syscall: 'name_to_handle_at', errno: E, why: 'produces the handles open_by_handle_at takes' },
  // Kernel attack surface no test program uses, and a frequent source of exploits.
  { syscall: 'bpf', errno: E, why: 'loads programs into the kernel' },
  { syscall: 'io_uring_setup', errno: N, why: 'large, often-exploited kernel surface; callers fall back to plain I/O' },
  { syscall: 'io_uring_enter', errno: N, why: 'part of io_uring' },
  { syscall: 'io_uring_register', errno: N, why: 'part of io_uring' },
  { syscall: 'userfaultfd', errno: E, why: 'stalls kernel page faults, a building block of race exploits' },
  { syscall: 'perf_event_open', errno: E, why: 'performance counters: side channels and kernel surface' },
  { syscall: 'memfd_secret', errno: N, why: 'memory hidden from the kernel itself, which no program here needs' },
  { syscall: 'modify_ldt', errno: E, why: 'changes segment descriptors (16-bit code, old exploits)' },
  { syscall: 'iopl', errno: E, why: 'raw I/O-port access' },
  { syscall: 'ioperm', errno: E, why: 'raw I/O-port access' },
  { syscall: 'lookup_dcookie', errno: E, why: 'profiling interface that leaks kernel paths' },
  { syscall: 'fanotify_init', errno: E, why: 'watches filesystem events' },
  { syscall: 'quotactl', errno: E, why: 'filesystem quota administration' },
  { syscall: 'quotactl_fd', errno: E, why: 'filesystem quota administration' },
  // Host administration: refused without capabilities anyway; one less code path.
  { syscall: 'kexec_load', errno: E, why: 'replaces the running kernel' },
  { syscall: 'kexec_file_load', errno: E, why: 'replaces the running kernel' },
  { syscall: 'init_module', errno: E, why: 'loads kernel modules' },
  { syscall: 'finit_module', errno: E, why: 'loads kernel modules' },
  { syscall: 'delete_module', errno: E, why: 'unloads kernel modules' },
  { syscall: 'reboot', errno: E, why: 'reboots the host' },
  { syscall: 'swapon', errno: E, why: 'host swap administration' },
  { syscall: 'swapoff', errno: E, why: 'host swap administration' },
  { syscall: 'acct', errno: E, why: 'host process accounting' },
  { syscall: 'settimeofday', errno: E, why: 'sets the host clock' },
  { syscall: 'clock_settime', errno: E, why: 'sets the host clock' },
  { syscall: 'clock_adjtime', errno: E, why: 'adjusts the host clock' },
  { syscall: 'adjtimex', errno: E, why: 'adjusts the host clock' },
  { syscall: 'syslog', errno: E, why: 'reads the kernel log (addresses for exploits)' },
  { syscall: 'vhangup', errno: E, why: 'hangs up the terminal' },
  { syscall: 'sethostname', errno: E, why: 'the hostname is fixed by the sandbox' },
  { syscall: 'setdomainname', errno: E, why: 'the domain name is fixed by the sandbox' },
  // Obsolete calls the kernel keeps for old binaries.
  { syscall: 'uselib', errno: E, why: 'obsolete a.out library loader' },
  { syscall: 'ustat', errno: E, why: 'obsolete filesystem statistics' },
  { syscall: 'sysfs', errno: E, why: 'obsolete filesystem-type query' },
  { syscall: '_sysctl', errno: N, why: 'obsolete sysctl interface (removed from current kernels)' },
  { syscall: 'nfsservctl', errno: N, why: 'obsolete NFS server control (removed from current kernels)' },
];
