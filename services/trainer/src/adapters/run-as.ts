// The unprivileged user a trainer started as root does job work as. The
// trainer switches its effective ids to that user at start, so every file a
// job reads or writes is opened with the user's rights (the kernel, not only
// the path checks, keeps a job out of root's files); it keeps root as its
// saved id only to create and hand over a job's output directories and to
// start policy workers, which drop to the user for good (uid, gid, no
// supplementary groups).
import { readFileSync } from 'node:fs';
import { AppError, ErrorCode } from '@rl/service-kit';

/** An unprivileged identity. */
export interface RunAs {
  user: string;
  uid: number;
  gid: number;
}

/** `name` (looked up in passwd) or `uid:gid`. */
export function lookupUser(spec: string, passwd: string): RunAs {
  const ids = /^(\d+):(\d+)$/.exec(spec);
  if (ids !== null) return { user: spec, uid: Number(ids[1]), gid: Number(ids[2]) };
  for (const line of passwd.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === spec && uid !== undefined && gid !== undefined) return { user: spec, uid: Number(uid), gid: Number(gid) };
  }
  throw new AppError(ErrorCode.InvalidConfig, `TRAINER_RUN_AS: no user ${JSON.stringify(spec)} in /etc/passwd (name a user or give uid:gid)`);
}

/**
 * The identity job work runs as: null when the trainer is not root (it then
 * has no more rights than its user) or TRAINER_RUN_AS is `root`.
 */
export function runAsIdentity(spec: string, uid = process.getuid?.()): RunAs | null {
  if (uid !== 0 || spec === 'root' || spec === '0:0') return null;
  const who = lookupUser(spec, readFileSync('/etc/passwd', 'utf8'));
  if (who.uid === 0)
    throw new AppError(ErrorCode.InvalidConfig, `TRAINER_RUN_AS: ${spec} is uid 0; name an unprivileged user (or "root" to keep root on purpose)`);
  return who;
}

/** Switches the process's effective ids (and groups) to `who`. */
export function dropTo(who: RunAs): void {
  process.setgroups!([who.gid]);
  process.setegid!(who.gid);
  process.seteuid!(who.uid);
}

/**
 * Runs `fn` with root's effective ids, then drops again. Synchronous on
 * purpose: no other JavaScript runs while root is held.
 */
export function asRoot<T>(who: RunAs | null, fn: () => T): T {
  if (who === null) return fn();
  process.seteuid!(0);
  process.setegid!(0);
  try {
    return fn();
  } finally {
    dropTo(who);
  }
}
