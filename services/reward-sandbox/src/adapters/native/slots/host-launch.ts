// What the service does as root right before it drops to a slot's uid and
// execs bubblewrap (or the zygote's bubblewrap): joins the slot's cgroups and,
// for a per-run sandbox, gives the run a private IPC namespace with SysV limits
// and private tmpfs mounts with an inode cap, all in a fresh mount namespace
// that dies with the run (nothing to clean up on the host, even after a crash).
//
// Why here and not in bubblewrap: bwrap 0.8 mounts its tmpfs with `size=` and
// no `nr_inodes=` (300,000 empty files cost the host ~370 MB of slab), and the
// IPC sysctls of a namespace can only be written by the uid that is root in the
// namespace's owner (ipc_permissions() compares euids), which inside bwrap
// (--uid 65534, no uid 0 mapped) is nobody but host root. So root makes the IPC
// namespace (owned by the initial user namespace: the sandbox can read its
// limits, never raise them), writes the limits, mounts the tmpfs, then drops;
// bwrap is told to keep that IPC namespace (no --unshare-ipc) and to bind the
// mounts at /tmp and /dev/shm.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where the per-run tmpfs mounts are made (in the run's own mount namespace; the host only sees empty dirs). */
export const MOUNT_BASE = '/run/reward-sandbox';
/** Source of the run's /tmp (bind-mounted by bwrap). */
export const TMP_SOURCE = join(MOUNT_BASE, 'tmp');
/** Source of the run's /dev/shm (bind-mounted by bwrap). */
export const SHM_SOURCE = join(MOUNT_BASE, 'shm');

/** Host tools the prefix runs (found by the probe). */
export interface LaunchTools {
  setpriv: string;
  unshare: string;
  mount: string;
}

/** A size- and inode-capped tmpfs. */
export interface TmpfsCap {
  bytes: number;
  inodes: number;
}

/** One run's host-side setup. */
export interface HostLaunchPlan {
  /** Host uid and gid to drop to. */
  uid: number;
  /** `cgroup.procs` files to join (the slot's cgroups). */
  cgroupProcs: readonly string[];
  /** A private IPC namespace with these sysctls (path under /proc/sys -> value). */
  ipcSysctls?: Readonly<Record<string, string>>;
  /** Private tmpfs mounts at TMP_SOURCE and SHM_SOURCE. */
  mounts?: { tmp: TmpfsCap; shm: TmpfsCap };
}

// Runs as root. Arguments: the mount binary, then counted lists (cgroup files; path/value
// sysctl pairs; mount option strings with their targets), then the command.
// Every failure exits 125, which the runner reports as a sandbox failure.
const SCRIPT = [
  'mount=$1; shift',
  'n=$1; shift; for ((i = 0; i < n; i++)); do echo $$ > "$1" || exit 125; shift; done',
  'n=$1; shift; for ((i = 0; i < n; i++)); do printf "%s\\n" "$2" > "/proc/sys/$1" || exit 125; shift 2; done',
  'n=$1; shift; for ((i = 0; i < n; i++)); do "$mount" -t tmpfs -o "$1" tmpfs "$2" || exit 125; shift 2; done',
  'exec "$@"',
].join('\n');

function tmpfsOptions(cap: TmpfsCap, uid: number): string {
  return `size=${cap.bytes},nr_inodes=${cap.inodes},mode=0755,uid=${uid},gid=${uid},nosuid,nodev`;
}

/** The argv prefix (ending in setpriv) that runs before the command; the command follows it. */
export function hostLaunchPrefix(tools: LaunchTools, plan: HostLaunchPlan): string[] {
  const u = String(plan.uid);
  const drop = [tools.setpriv, `--reuid=${u}`, `--regid=${u}`, '--clear-groups'];
  const sysctls = Object.entries(plan.ipcSysctls ?? {}).flat();
  const mounts = plan.mounts === undefined ? [] : [tmpfsOptions(plan.mounts.tmp, plan.uid), TMP_SOURCE, tmpfsOptions(plan.mounts.shm, plan.uid), SHM_SOURCE];
  const args = [
    '/bin/bash',
    '--norc',
    '--noprofile',
    '-c',
    SCRIPT,
    'slot-launch',
    tools.mount,
    String(plan.cgroupProcs.length),
    ...plan.cgroupProcs,
    String(sysctls.length / 2),
    ...sysctls,
    String(mounts.length / 2),
    ...mounts,
    ...drop,
  ];
  const namespaces = [...(plan.ipcSysctls !== undefined ? ['--ipc'] : []), ...(plan.mounts !== undefined ? ['--mount', '--propagation', 'private'] : [])];
  return namespaces.length === 0 ? args : [tools.unshare, ...namespaces, '--', ...args];
}

/** Creates the (empty) mount points on the host; false when that is impossible (then runs use bwrap's own tmpfs). */
export function prepareMountPoints(): boolean {
  try {
    for (const d of [TMP_SOURCE, SHM_SOURCE]) mkdirSync(d, { recursive: true, mode: 0o755 });
    return true;
  } catch {
    return false;
  }
}
