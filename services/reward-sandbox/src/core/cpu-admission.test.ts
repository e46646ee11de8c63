import { describe, expect, it } from 'vitest';
import { CpuAdmission } from './cpu-admission.ts';

/** A fake clock and CPU counter: `advance(ms, cores)` moves time on while `cores` of CPU are busy. */
function host() {
  let t = 1000;
  let cpu = 0;
  let readable = true;
  return {
    now: () => t,
    sampler: { cpuMs: () => (readable ? cpu : null) },
    advance(ms: number, cores: number) {
      t += ms;
      cpu += ms * cores;
    },
    unreadable() {
      readable = false;
    },
  };
}

const make = (h: ReturnType<typeof host>, floor = 2, max = 32) => new CpuAdmission({ cores: 2, floor, max, sampler: h.sampler, now: h.now, sampleMs: 100 });

describe('CpuAdmission', () => {
  it('starts at the floor and keeps the limit between readings', () => {
    const h = host();
    const a = make(h);
    expect(a.limit(0)).toBe(2);
    h.advance(50, 0);
    expect(a.limit(2)).toBe(2);
  });

  it('lets runs that use no CPU in, growing at most twofold per reading, up to max', () => {
    const h = host();
    const a = make(h);
    const limits: number[] = [];
    let running = 2;
    a.note(running);
    for (let i = 0; i < 6; i++) {
      h.advance(100, 0.02 * running); // sleeping programs: 2% of a core each
      const l = a.limit(running);
      limits.push(l);
      running = l;
      a.note(running);
    }
    expect(limits).toEqual([4, 8, 16, 32, 32, 32]);
  });

  it('holds CPU-bound runs at about one per core', () => {
    const h = host();
    const a = make(h);
    a.note(2);
    for (let i = 0; i < 5; i++) {
      h.advance(100, 2); // two runs, each a full core
      expect(a.limit(2)).toBe(2);
    }
    expect([a.current, a.demandCores]).toEqual([2, 2]);
  });

  it('settles where the runs going on fill the target share of the cores', () => {
    const h = host();
    const a = make(h);
    a.note(8);
    h.advance(100, 8 * 0.1); // 8 runs at 0.1 core each: 18 would fill 90% of 2 cores, growth allows 16
    expect(a.limit(8)).toBe(16);
    a.note(16);
    h.advance(100, 16 * 0.1);
    expect(a.limit(16)).toBe(18);
    a.note(18);
    h.advance(100, 18 * 0.1);
    expect(a.limit(18)).toBe(18);
  });

  it('drops toward the floor when the CPU is over the target (no new runs until enough end)', () => {
    const h = host();
    const a = make(h);
    a.note(16);
    h.advance(100, 2); // 16 runs that turned CPU-bound
    expect(a.limit(16)).toBe(14);
    a.note(2);
    h.advance(100, 2);
    expect(a.limit(2)).toBe(2);
  });

  it('weights the runs going on by time within the interval', () => {
    const h = host();
    const a = make(h);
    a.note(2);
    h.advance(50, 0);
    a.note(10); // 10 runs for the second half: 6 on average
    h.advance(50, 1.8); // 0.9 cores over the interval, i.e. 0.15 per average run: 12 fill 1.8 cores
    expect(a.limit(10)).toBe(12);
  });

  it('falls back to the floor when the CPU cannot be read', () => {
    const h = host();
    const a = make(h);
    a.note(2);
    h.advance(100, 0);
    expect(a.limit(2)).toBe(4);
    h.unreadable();
    h.advance(100, 0);
    expect(a.limit(4)).toBe(2);
  });

  it('is a fixed count when floor = max, and never reads the CPU', () => {
    const h = host();
    let reads = 0;
    const a = new CpuAdmission({
      cores: 2,
      floor: 3,
      max: 3,
      sampler: {
        cpuMs: () => {
          reads += 1;
          return 0;
        },
      },
      now: h.now,
    });
    h.advance(1000, 0);
    expect([a.adaptive, a.limit(0), a.limit(3), reads]).toEqual([false, 3, 3, 0]);
  });

  it('rejects bad bounds', () => {
    const h = host();
    expect(() => make(h, 0, 4)).toThrow(RangeError);
    expect(() => make(h, 4, 2)).toThrow(RangeError);
  });
});
