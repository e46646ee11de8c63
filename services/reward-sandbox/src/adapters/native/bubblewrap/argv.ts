// The bubblewrap command line for one sandbox. Every run gets fresh namespaces
// (user, pid, net, ipc, uts, cgroup) and a filesystem assembled from read-only
// binds of the toolchains plus private, size-capped tmpfs mounts; the root and
// /dev are remounted read-only at the end so nothing else is writable. Nothing
// is bound writable from the host, so nothing the program writes can persist.

import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { MNT_DIR, WORK_DIR } from '../plan/paths.ts';

/** Where the node binary is bound inside the sandbox. */
export const SANDBOX_NODE = '/opt/node/bin/node';
/**
 * Where the npm package dir (runtime/node-packages: package.json, configs,
 * node_modules) is bound read-only; `/node_modules` links to its node_modules,
 * so `require` and ESM `import` find the packages from any directory.
 */
export const SANDBOX_NODE_PACKAGES = '/opt/node-packages';
/** Where a sandbox sees its slot's run cgroup's `cgroup.procs` (../slots/cgroup.ts): the program writes 0 there before it starts. */
export const RUN_CGROUP_PROCS = '/run/sandbox/cgroup.procs';
/** Where the zygote's sandbox sees run cgroup `i` of its slot's two. */
export const runCgroupProcsPath = (i: number): string => (i === 0 ? RUN_CGROUP_PROCS : `${RUN_CGROUP_PROCS}.${i}`);

/** What the host offers to bind (detected once at start). */
export interface HostLayout {
  /** `/bin`, `/lib64`, ...: symlinks on merged-/usr systems, real dirs otherwise. */
  rootEntries: Array<{ path: string; symlink?: string }>;
  /** Files and dirs under /etc that the dynamic loader and toolchains need. */
  etc: string[];
  /** Real path of the node binary, bound at SANDBOX_NODE. */
  nodeHostPath?: string;
  /** Real path of the npm package dir, bound at SANDBOX_NODE_PACKAGES. */
  nodePackagesHostPath?: string;
}

/** One file copied into the sandbox from an inherited fd during setup. */
export interface DataFile {
  fd: number;
  dest: string;
  perms?: string;
}

/** Everything that varies per sandbox. */
export interface SandboxPlan {
  layout: HostLayout;
  uid: number;
  env: Record<string, string>;
  /** Size cap of the /tmp tmpfs (work dir and temp files), when bwrap mounts it. */
  tmpBytes: number;
  /** Size cap of /dev/shm (POSIX shared memory, semaphores), when bwrap mounts it. */
  shmBytes: number;
  /**
   * Host paths of tmpfs mounts made for this run (../slots/host-launch.ts, with
   * an inode cap bwrap cannot set) to bind at /tmp and /dev/shm instead of
   * letting bwrap mount its own.
   */
  tmpfsSources?: { tmp: string; shm: string };
  /**
   * Keep the IPC namespace the launcher made (with SysV limits only host root
   * can write) instead of unsharing a fresh one. Every other namespace is new.
   */
  ipcFromLauncher?: boolean;
  files: DataFile[];
  /** Fd bwrap writes its JSON info (child-pid) to. */
  infoFd: number;
  /** The command the sandbox runs (the supervisor). */
  command: string[];
  /** Extra read-only binds (host path -> sandbox path). */
  roBinds?: Array<{ src: string; dest: string }>;
  /** Host paths of the slot's run cgroups' `cgroup.procs`, the i-th bound writable at runCgroupProcsPath(i). */
  runCgroupProcs?: readonly string[];
  /**
   * Keep user namespaces creatable inside (omit --disable-userns). Only for the
   * python zygote, whose own code creates a namespace per run and disables
   * nested ones there before any program runs.
   */
  nestedUserns?: boolean;
  /**
   * Fd bwrap reads a seccomp program from (../seccomp/filter.ts); bwrap loads it
   * into the sandbox's pid 1 and command right before exec, so the supervisor,
   * the program and everything it forks run under it.
   */
  seccompFd?: number;
}

/** The program's whole environment (bwrap --clearenv drops everything else). */
export const SANDBOX_ENV: Readonly<Record<string, string>> = {
  PATH: '/opt/node/bin:/usr/local/bin:/usr/bin:/bin',
  HOME: '/tmp',
  TMPDIR: '/tmp',
  LANG: 'C.UTF-8',
  // BLAS/OpenMP would start a thread per host core, which runs into RLIMIT_NPROC
  // and RLIMIT_AS (each thread reserves stack and malloc arenas) on big hosts.
  OMP_NUM_THREADS: '1',
  OPENBLAS_NUM_THREADS: '1',
  MKL_NUM_THREADS: '1',
};

const ROOT_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const ETC = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/localtime'];
// Toolchain configuration Debian keeps under /etc: the JDK's conf/ (java.security,
// without which javac and java die at start) is a symlink into /etc/java-<n>-openjdk;
// php's and R's ini/profile dirs; mono's machine.config and DLL map (mono dies
// at start without them); racket's config.rktd (where its collections are).
const ETC_TOOLCHAINS = /^(java-\d+-openjdk|php|R|mono|racket)$/;

/** Inspects the host's root layout (merged /usr or not) and the /etc pieces to bind. */
export function detectHostLayout(nodeHostPath: string | undefined, nodePackagesHostPath?: string): HostLayout {
  const rootEntries: HostLayout['rootEntries'] = [];
  for (const path of ROOT_DIRS) {
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) rootEntries.push({ path, symlink: readlinkSync(path) });
      else if (st.isDirectory()) rootEntries.push({ path });
    } catch {
      // absent on this host (e.g. /lib32): nothing to bind
    }
  }
  let toolchainEtc: string[] = [];
  try {
    toolchainEtc = readdirSync('/etc')
      .filter((n) => ETC_TOOLCHAINS.test(n))
      .sort()
      .map((n) => `/etc/${n}`);
  } catch {
    // no readable /etc: the toolchains that need it fail their own way
  }
  const etc = [...ETC, ...toolchainEtc].filter((p) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  });
  return { rootEntries, etc, ...(nodeHostPath !== undefined && { nodeHostPath }), ...(nodePackagesHostPath !== undefined && { nodePackagesHostPath }) };
}

/** The bwrap arguments (without the bwrap path) for one sandbox. */
export function bwrapArgs(plan: SandboxPlan): string[] {
  const a: string[] = [
    // --unshare-all without --unshare-ipc when the launcher made the IPC namespace.
    ...(plan.ipcFromLauncher === true ? ['--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try'] : ['--unshare-all']),
    '--unshare-user', // explicit: needed for --uid and --disable-userns even when bwrap runs as root
    // no nested user namespaces, so no capabilities to reach more kernel surface
    ...(plan.nestedUserns === true ? [] : ['--disable-userns']),
    '--die-with-parent', // if bwrap's monitor dies (we kill it), the sandbox's pid 1 dies and takes the namespace down
    '--new-session', // no controlling terminal (TIOCSTI)
    '--info-fd',
    String(plan.infoFd), // reports the host pid of the sandbox's pid 1, which the killer needs
    '--uid',
    String(plan.uid),
    '--gid',
    String(plan.uid),
    '--hostname',
    'sandbox',
    '--clearenv',
    ...(plan.seccompFd === undefined ? [] : ['--seccomp', String(plan.seccompFd)]),
  ];
  for (const [k, v] of Object.entries(plan.env)) a.push('--setenv', k, v);
  a.push('--ro-bind', '/usr', '/usr');
  for (const e of plan.layout.rootEntries) {
    if (e.symlink !== undefined) a.push('--symlink', e.symlink, e.path);
    else a.push('--ro-bind', e.path, e.path);
  }
  for (const p of plan.layout.etc) a.push('--ro-bind', p, p);
  if (plan.layout.nodeHostPath !== undefined) a.push('--ro-bind', plan.layout.nodeHostPath, SANDBOX_NODE);
  if (plan.layout.nodePackagesHostPath !== undefined) {
    a.push('--ro-bind', plan.layout.nodePackagesHostPath, SANDBOX_NODE_PACKAGES, '--symlink', `${SANDBOX_NODE_PACKAGES}/node_modules`, '/node_modules');
  }
  for (const b of plan.roBinds ?? []) a.push('--ro-bind', b.src, b.dest);
  for (const [i, src] of (plan.runCgroupProcs ?? []).entries()) a.push('--bind', src, runCgroupProcsPath(i));
  a.push('--proc', '/proc', '--dev', '/dev');
  if (plan.tmpfsSources === undefined) {
    a.push('--size', String(plan.shmBytes), '--tmpfs', '/dev/shm');
    a.push('--size', String(plan.tmpBytes), '--tmpfs', '/tmp');
  } else {
    a.push('--bind', plan.tmpfsSources.shm, '/dev/shm');
    a.push('--bind', plan.tmpfsSources.tmp, '/tmp');
  }
  a.push('--dir', WORK_DIR, '--dir', MNT_DIR, '--symlink', MNT_DIR, '/mnt');
  for (const f of plan.files) {
    if (f.perms !== undefined) a.push('--perms', f.perms);
    a.push('--file', String(f.fd), f.dest);
  }
  // The root tmpfs and /dev's tmpfs are writable by the sandbox uid and unbounded; freeze them.
  a.push('--remount-ro', '/dev', '--remount-ro', '/');
  a.push('--chdir', WORK_DIR, '--', ...plan.command);
  return a;
}
