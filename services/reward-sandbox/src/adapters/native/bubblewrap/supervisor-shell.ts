// The shell the supervisor runs in, made execute-only. The supervisor shares the
// program's uid, so by default the program could open the supervisor's
// /proc/<pid>/mem (and fd/, environ) and rewrite what it reports; seccomp stops
// ptrace, pidfd_getfd and process_vm_*, but not an open() of /proc. A process that
// execs a file it cannot read is made non-dumpable by the kernel (would_dump() in
// fs/exec.c), and a non-dumpable process's /proc entries are closed to
// processes without CAP_SYS_PTRACE, which nothing in the sandbox has. The
// program's own exec (of a readable binary) makes it dumpable again, so nothing
// else changes. The dumpable flag survives fork, so the compile and run
// subshells start non-dumpable too, until they exec.

import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the execute-only shell is bound inside the sandbox. */
export const SUPERVISOR_SHELL = '/run/sandbox/supervisor-bash';

/** A host copy of bash that nobody can read, only execute. */
export interface SupervisorShell {
  /** Host path, to bind read-only at {@link SUPERVISOR_SHELL}. */
  readonly hostPath: string;
  /** Removes the copy (at shutdown). */
  remove(): void;
}

/**
 * Copies `bash` (default /bin/bash) to a fresh private directory with mode 0111.
 * The directory is the service's own (0700 by mkdtemp, opened to 0711 so the
 * sandbox uid can reach the file for bwrap's bind); inside the sandbox the bind
 * is read-only, so the mode cannot be changed back.
 */
export function prepareSupervisorShell(bash = '/bin/bash', parent = tmpdir()): SupervisorShell {
  const dir = mkdtempSync(join(parent, 'reward-sandbox-shell-'));
  const hostPath = join(dir, 'bash');
  try {
    copyFileSync(bash, hostPath);
    chmodSync(hostPath, 0o111);
    chmodSync(dir, 0o711);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { hostPath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
