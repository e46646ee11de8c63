import { describe, expect, it } from 'vitest';
import { procStatBusyMs, serviceCpuSampler, waitTracker } from './cpu-sampler.ts';

describe('procStatBusyMs', () => {
  it('sums the busy fields of the cpu line (not idle, not iowait), in ms', () => {
    expect(procStatBusyMs('cpu  100 2 30 5000 40 1 3 4 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n')).toBe((100 + 2 + 30 + 1 + 3 + 4) * 10);
    expect(procStatBusyMs('nothing here')).toBeNull();
    expect(procStatBusyMs(null)).toBeNull();
  });
});

describe('waitTracker', () => {
  /** Fake tasks: schedstat run/wait in ms, a clock in ms. */
  function fake() {
    let t = 0;
    const tasks: Record<string, { run: number; wait: number }> = {};
    const reads: string[] = [];
    return {
      tasks,
      reads,
      now: () => t,
      advance: (ms: number) => void (t += ms),
      list: () => Object.keys(tasks),
      schedstat: (tid: string) => {
        reads.push(tid);
        const x = tasks[tid];
        return x === undefined ? null : `${x.run * 1e6} ${x.wait * 1e6} 1`;
      },
    };
  }

  it('adds the wait of tasks runnable ≥ 90% of the time since their last reading, not of those that mostly sleep', () => {
    const f = fake();
    const total = waitTracker(f.list, f.schedstat, f.now);
    f.tasks.bound = { run: 0, wait: 0 };
    f.tasks.sleeper = { run: 0, wait: 0 };
    expect(total()).toBe(0);
    f.advance(100);
    f.tasks.bound = { run: 30, wait: 65 }; // runnable 95 of 100 ms: a CPU-bound task on a busy host
    f.tasks.sleeper = { run: 10, wait: 40 }; // runnable 50 of 100 ms: its start-up, then asleep
    expect(total()).toBe(65);
    f.advance(100);
    f.tasks.bound = { run: 60, wait: 135 };
    f.tasks.fresh = { run: 20, wait: 75 }; // new: judged against the time since the previous reading
    delete f.tasks.sleeper; // ended: its wait since the last reading is lost
    expect(total()).toBe(65 + 70 + 75);
  });

  it('reads at most maxReads tasks per reading: new ones, then those that waited, then the rest longest-unread first', () => {
    const f = fake();
    const total = waitTracker(f.list, f.schedstat, f.now, { maxReads: 2 });
    f.tasks.a = { run: 0, wait: 0 };
    f.tasks.b = { run: 0, wait: 0 };
    total(); // a, b
    f.tasks.c = { run: 0, wait: 0 };
    f.advance(100);
    f.tasks.a = { run: 50, wait: 50 };
    total(); // c (new), a (read longest ago, with b)
    f.advance(100);
    total(); // a (waited), then b (read longest ago)
    f.advance(100);
    total(); // c and a (read two readings ago; a no longer waits), b waits its turn
    expect(f.reads).toEqual(['a', 'b', 'c', 'a', 'a', 'b', 'c', 'a']);
  });
});

describe('serviceCpuSampler', () => {
  it('reads a growing counter on this host', () => {
    const s = serviceCpuSampler();
    try {
      const a = s.cpuMs();
      // Burn 30 ms of this process's own CPU (not of wall time, which a loaded host may give to others).
      const burnt = process.cpuUsage();
      while (process.cpuUsage(burnt).user < 30_000);
      const b = s.cpuMs();
      expect(a).not.toBeNull();
      expect(b!).toBeGreaterThan(a!);
    } finally {
      s.close();
    }
  });
});
