// Killing a sandbox for good. SIGKILL on bwrap's sandbox pid 1 makes the kernel
// kill every task in its pid namespace, but asynchronously; pid 1 becomes a
// zombie only after all of them are gone, which is what we wait for.

import { readFileSync } from 'node:fs';

/** `[comm, state]` of a host pid, or null if it is gone. */
function procState(pid: number): [string, string] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const close = stat.lastIndexOf(')');
    return [stat.slice(stat.indexOf('(') + 1, close), stat.charAt(close + 2)];
  } catch {
    return null;
  }
}

/** SIGKILLs the sandbox's pid 1 if it is still a live bwrap (guards against a recycled pid). */
export function killInit(pid: number): void {
  const st = pid > 0 ? procState(pid) : null;
  if (st === null || st[0] !== 'bwrap' || st[1] === 'Z') return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves once pid 1 of the sandbox is a zombie or gone: the kernel has then reaped every task in its namespace. */
export async function namespaceGone(pid: number): Promise<void> {
  for (let waited = 0; pid > 0 && waited < 5000; waited += 2) {
    const st = procState(pid);
    if (st === null || st[0] !== 'bwrap' || st[1] === 'Z') return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Whether `pid` exists (EPERM: it exists but belongs to another uid, e.g. a slot's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
