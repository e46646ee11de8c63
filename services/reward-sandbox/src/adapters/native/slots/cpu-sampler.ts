// The CPU reading behind slot admission (core/cpu-admission.ts): CPU time used
// by this service and everything it starts (zygotes, launchers, sandboxes, the
// JavaScript workers, and the service's own request handling), plus the time
// its CPU-bound tasks spent runnable but waiting for a CPU
// (/proc/<tid>/schedstat). So a CPU-bound program reads as what it asks of the
// CPU, a core, not what it got: on a host whose other tenants keep the cores
// busy, two CPU-bound programs still read as two cores, and admission does not
// add more of them (which would only slow each one towards its wall-clock
// limit). Only the wait of tasks that were runnable (running or waiting) for
// at least 90% of the time since their last reading counts: on such a host
// every task waits several times its CPU time, and counting a sleeping
// program's wait around its short start-up would make it look CPU-bound too
// (measured: the admission limit then stayed at 5-7 sleeping programs at load
// 9 on 2 cores). The wait of tasks that ended since their last reading is
// missed (an under-estimate).
//
// - cgroup v1: a cpuacct group of our own (`rs-<pid>-cpu`, a child of the
//   service's cpuacct group) that the service moves itself into at start-up,
//   so every process it starts later is born in it; `cpuacct.usage`. The move
//   only changes accounting (cpuacct sets no limit). At exit the service moves
//   back and removes it; a crashed service's group is removed by the next one.
// - cgroup v2: the service's own cgroup's `cpu.stat` (`usage_usec` is kept
//   for every cgroup, descendants included: the slots' cgroups are children).
// - otherwise: the host's busy time from /proc/stat (other tenants count too;
//   no wait time).

import { readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuSampler } from '../../../core/cpu-admission.ts';
import { joinOwnCpuacctGroup, ownCpuPlace } from './cgroup-places.ts';
import { processAlive as alive } from '../reaper.ts';

/** A CPU sampler and where it reads from, for the start-up log. */
export interface ServiceCpuSampler extends CpuSampler {
  readonly source: string;
  /** Leaves and removes the v1 group (no-op otherwise). */
  close(): void;
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** The host's busy CPU time (all CPUs) from /proc/stat, in ms; null if unreadable. */
export function procStatBusyMs(text = read('/proc/stat')): number | null {
  const line = text?.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return null;
  // user nice system idle iowait irq softirq steal ...; busy = all but idle and iowait. USER_HZ is 100 on Linux.
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 8 || f.some((x) => !Number.isFinite(x))) return null;
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) * 10;
}

/**
 * Cumulative ms that CPU-bound tasks among the listed ones spent runnable but
 * not running, summed over the readings. Each reading takes, per task it reads,
 * its run and wait time since that task's last reading (schedstat's first two
 * fields; for a new task, since its start, against the time since the previous
 * reading) and adds the wait when run + wait covers at least `boundShare` of
 * that time. A reading reads at most `maxReads` tasks (each file read costs
 * ~15 µs of CPU, and a burst has a few hundred tasks, most of them idle zygotes
 * and threads): new tasks first, then those that waited at their last reading,
 * then the rest, read longest ago first; a skipped task is judged over the
 * longer span when it is next read.
 */
export function waitTracker(
  listTasks: () => string[],
  readSchedstat = (tid: string) => read(`/proc/${tid}/schedstat`),
  now = () => performance.now(),
  { maxReads = 64, boundShare = 0.9 } = {},
): () => number {
  const last = new Map<string, { run: number; wait: number; at: number; waited: boolean }>();
  let previous = now();
  let total = 0;
  const rank = (tid: string) => {
    const l = last.get(tid);
    return l === undefined ? 0 : l.waited ? 1 : 2;
  };
  return () => {
    const t = now();
    const live = new Set(listTasks());
    for (const tid of last.keys()) if (!live.has(tid)) last.delete(tid);
    const order = [...live].sort((a, b) => rank(a) - rank(b) || (last.get(a)?.at ?? 0) - (last.get(b)?.at ?? 0));
    for (const tid of order.slice(0, maxReads)) {
      const f = readSchedstat(tid)?.split(' ');
      const run = Number(f?.[0]);
      const wait = Number(f?.[1]);
      if (!Number.isFinite(run) || !Number.isFinite(wait)) continue;
      const before = last.get(tid);
      const dRun = Math.max(0, run - (before?.run ?? 0)) / 1e6;
      const dWait = Math.max(0, wait - (before?.wait ?? 0)) / 1e6;
      const span = t - (before?.at ?? previous);
      if (span > 0 && dRun + dWait >= boundShare * span) total += dWait;
      last.set(tid, { run, wait, at: t, waited: dWait > 0 });
    }
    previous = t;
    return total;
  };
}

/** The threads of a v2 cgroup and its descendants. */
function v2Threads(dir: string): string[] {
  const out = (read(join(dir, 'cgroup.threads')) ?? '').split('\n').filter(Boolean);
  let subs: string[] = [];
  try {
    subs = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    // gone
  }
  for (const d of subs) out.push(...v2Threads(join(dir, d)));
  return out;
}

/** The best CPU reading this host gives the service (see the file comment). */
export function serviceCpuSampler(): ServiceCpuSampler {
  const place = ownCpuPlace();
  if (place?.v2 === true) {
    const file = join(place.dir, 'cpu.stat');
    const usec = () => {
      const m = /^usage_usec (\d+)$/m.exec(read(file) ?? '');
      return m === null ? null : Number(m[1]) / 1000;
    };
    if (usec() !== null) {
      const wait = waitTracker(() => v2Threads(place.dir));
      return {
        source: `cgroup v2 ${file} + schedstat wait`,
        cpuMs: () => {
          const used = usec();
          return used === null ? null : used + wait();
        },
        close: () => {},
      };
    }
  } else if (place !== null) {
    const v1 = joinOwnCpuacct(place.dir);
    if (v1 !== null) return v1;
  }
  return { source: '/proc/stat (host-wide)', cpuMs: () => procStatBusyMs(), close: () => {} };
}

function joinOwnCpuacct(parent: string): ServiceCpuSampler | null {
  for (const name of readdirSync(parent)) {
    const m = /^rs-(\d+)-cpu$/.exec(name);
    if (m !== null && !alive(Number(m[1]))) {
      try {
        rmdirSync(join(parent, name));
      } catch {
        // still holds a straggler
      }
    }
  }
  const group = joinOwnCpuacctGroup(parent, `rs-${process.pid}-cpu`);
  if (group === null) return null;
  const wait = waitTracker(() => (read(join(group.dir, 'tasks')) ?? '').split('\n').filter(Boolean));
  // Children still inside at exit keep the group; the next service removes it (above).
  process.once('exit', group.leave);
  return {
    source: `cgroup v1 ${group.dir} + schedstat wait`,
    cpuMs: () => {
      const ns = group.usageNs();
      return ns === null ? null : ns / 1e6 + wait();
    },
    close: group.leave,
  };
}
