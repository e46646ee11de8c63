// Where this process sits in the cgroup hierarchies (v1 per controller, or v2),
// read from /proc/self/cgroup and /proc/self/mountinfo.

import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A cgroup directory and whether it is on the v2 (unified) hierarchy. */
export interface Place {
  dir: string;
  v2: boolean;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The mounts this process sees: root within the filesystem, mount point, type and super options. */
function mountTable(): Array<{ root: string; point: string; type: string; opts: string[] }> {
  return read('/proc/self/mountinfo')
    .split('\n')
    .map((l) => {
      const [pre, post] = l.split(' - ');
      const f = (pre ?? '').split(' ');
      const g = (post ?? '').split(' ');
      return { root: f[3] ?? '', point: f[4] ?? '', type: g[0] ?? '', opts: (g[2] ?? '').split(',') };
    });
}

/** Our own cgroup dirs in which the memory and pids controllers can be used for children (v1 preferred). */
export function ownPlaces(): { memory: Place | null; pids: Place | null } {
  const mounts = mountTable();
  const out: { memory: Place | null; pids: Place | null } = { memory: null, pids: null };
  for (const line of read('/proc/self/cgroup').split('\n')) {
    const [, ctrls, path] = line.split(':');
    if (path === undefined || ctrls === undefined) continue;
    const v2 = ctrls === '';
    const names = ctrls.split(',');
    const m = mounts.find((mt) => (v2 ? mt.type === 'cgroup2' : mt.type === 'cgroup' && mt.opts.some((o) => names.includes(o))));
    if (m === undefined || !path.startsWith(m.root)) continue;
    const dir = join(m.point, path.slice(m.root === '/' ? 0 : m.root.length));
    // v2: usable only if our cgroup already delegates the controller to its children.
    const has = (c: string) => (v2 ? read(join(dir, 'cgroup.subtree_control')).split(/\s+/).includes(c) : names.includes(c));
    if (has('memory') && (out.memory === null || !v2)) out.memory = { dir, v2 };
    if (has('pids') && (out.pids === null || !v2)) out.pids = { dir, v2 };
  }
  return out;
}

/** Our own cgroup dir for CPU accounting: v1's cpuacct hierarchy (preferred), else the v2 one; null when neither is mounted. */
export function ownCpuPlace(): Place | null {
  const mounts = mountTable();
  let v2: Place | null = null;
  for (const line of read('/proc/self/cgroup').split('\n')) {
    const [, ctrls, path] = line.split(':');
    if (path === undefined || ctrls === undefined) continue;
    const isV2 = ctrls === '';
    if (!isV2 && !ctrls.split(',').includes('cpuacct')) continue;
    const m = mounts.find((mt) => (isV2 ? mt.type === 'cgroup2' : mt.type === 'cgroup' && mt.opts.includes('cpuacct')));
    if (m === undefined || !path.startsWith(m.root)) continue;
    const dir = join(m.point, path.slice(m.root === '/' ? 0 : m.root.length));
    if (!isV2) return { dir, v2: false };
    v2 = { dir, v2: true };
  }
  return v2;
}

/** This process in a cpuacct (v1) group of its own: what it and every process it starts later use. */
export interface OwnCpuacctGroup {
  readonly dir: string;
  /** CPU nanoseconds charged to the group so far, or null when unreadable. */
  usageNs(): number | null;
  /** Moves this process back to the parent group and removes the group (kept while a child is inside). */
  leave(): void;
}

/**
 * Creates `parent/name` and moves this process into it (children started later
 * are born there), or returns null where that is not allowed. cpuacct only
 * counts, so the move changes no limit.
 */
export function joinOwnCpuacctGroup(parent: string, name: string): OwnCpuacctGroup | null {
  const dir = join(parent, name);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // not made
    }
    return null;
  }
  let left = false;
  return {
    dir,
    usageNs: () => {
      try {
        return Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8').trim());
      } catch {
        return null;
      }
    },
    leave: () => {
      if (left) return;
      left = true;
      try {
        writeFileSync(join(parent, 'cgroup.procs'), String(process.pid));
        rmdirSync(dir);
      } catch {
        // children still inside: whoever reaps stale groups removes it
      }
    },
  };
}
