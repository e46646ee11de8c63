// The CPU reading behind slot admission (core/cpu-admission.ts): CPU time used
// by this service and everything it starts (zygotes, launchers, sandboxes, the
// JavaScript workers, and the service's own request handling), plus the time
// its tasks spent runnable but waiting for a CPU (/proc/<tid>/schedstat). So
// the reading is what the work asks of the CPU, not what it got: on a host
// whose other tenants keep the cores busy, two CPU-bound programs still read as
// two cores, and admission does not add more of them (which would only slow
// each one towards its wall-clock limit), while sleeping programs read as
// almost nothing and are let in. The wait of tasks that ended between two
// readings is missed (an under-estimate, corrected at the next reading).
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

import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuSampler } from '../../core/cpu-admission.ts';
import { ownCpuPlace } from '../bwrap/cgroup-places.ts';

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
 * Cumulative ms the listed tasks spent runnable but not running (schedstat's
 * second field), summed over the readings: each reading adds, per task it
 * reads, its wait since that task's last reading (since its start for a new
 * task). A reading reads at most `maxReads` tasks, new ones first, then those
 * read longest ago (each file read costs ~15 µs of CPU, and a burst has a few
 * hundred tasks); a skipped task's wait is counted, whole, when it is next read.
 */
export function waitTracker(listTasks: () => string[], readSchedstat = (tid: string) => read(`/proc/${tid}/schedstat`), maxReads = 48): () => number {
  const last = new Map<string, { wait: number; readAt: number }>();
  let reading = 0;
  let total = 0;
  return () => {
    reading += 1;
    const live = new Set(listTasks());
    for (const tid of last.keys()) if (!live.has(tid)) last.delete(tid);
    const order = [...live].sort((a, b) => (last.get(a)?.readAt ?? -1) - (last.get(b)?.readAt ?? -1));
    for (const tid of order.slice(0, maxReads)) {
      const w = Number(readSchedstat(tid)?.split(' ')[1]);
      if (!Number.isFinite(w)) continue;
      total += Math.max(0, w - (last.get(tid)?.wait ?? 0)) / 1e6;
      last.set(tid, { wait: w, readAt: reading });
    }
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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

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
  const dir = join(parent, `rs-${process.pid}-cpu`);
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
  const usage = join(dir, 'cpuacct.usage');
  const wait = waitTracker(() => (read(join(dir, 'tasks')) ?? '').split('\n').filter(Boolean));
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      writeFileSync(join(parent, 'cgroup.procs'), String(process.pid));
      rmdirSync(dir);
    } catch {
      // children still inside: the next service removes it
    }
  };
  process.once('exit', close);
  return {
    source: `cgroup v1 ${dir} + schedstat wait`,
    cpuMs: () => {
      const v = read(usage);
      return v === null ? null : Number(v.trim()) / 1e6 + wait();
    },
    close,
  };
}
