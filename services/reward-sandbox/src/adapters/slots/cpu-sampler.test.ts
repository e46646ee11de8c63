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
  it('adds each live task’s wait since the last reading, a new task’s since its start', () => {
    let tasks = ['1', '2'];
    const waits: Record<string, number> = { '1': 5e6, '2': 1e6 };
    const total = waitTracker(
      () => tasks,
      (tid) => (tid in waits ? `0 ${waits[tid]} 1` : null),
    );
    expect(total()).toBe(6);
    waits['1'] = 8e6; // +3 ms
    tasks = ['1', '3']; // 2 ended (its last wait is lost), 3 is new
    waits['3'] = 2e6;
    expect(total()).toBe(11);
    tasks = ['1', '3', '4']; // 4 vanished before it was read
    expect(total()).toBe(11);
  });

  it('reads at most maxReads tasks per reading, new and longest-unread first, and counts a skipped task’s wait when read', () => {
    const waits: Record<string, number> = { a: 1e6, b: 2e6, c: 4e6 };
    const reads: string[] = [];
    const total = waitTracker(
      () => Object.keys(waits),
      (tid) => (reads.push(tid), `0 ${waits[tid]} 1`),
      2,
    );
    expect(total()).toBe(3); // a, b
    waits.a = 11e6;
    expect(total()).toBe(17); // c (new, 4) and a (+10)
    expect(total()).toBe(17); // b (read longest ago), then a (ties keep list order): unchanged
    expect(reads).toEqual(['a', 'b', 'c', 'a', 'b', 'a']);
  });
});

describe('serviceCpuSampler', () => {
  it('reads a growing counter on this host', () => {
    const s = serviceCpuSampler();
    try {
      const a = s.cpuMs();
      const until = performance.now() + 30;
      while (performance.now() < until); // burn some CPU
      const b = s.cpuMs();
      expect(a).not.toBeNull();
      expect(b!).toBeGreaterThan(a!);
    } finally {
      s.close();
    }
  });
});
