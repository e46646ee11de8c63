import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SlotPool } from './slot-pool.ts';
import { UidRangeError, UidRangeProblem, checkUidRange } from './uid-range.ts';

const never = new AbortController().signal;

describe('SlotPool', () => {
  it('gives each concurrent holder its own slot and uid, and queues past the size (FIFO)', async () => {
    const pool = new SlotPool({ size: 2, uidBase: 5000 });
    const a = await pool.acquire(never);
    const b = await pool.acquire(never);
    expect([a.index, a.uid, b.index, b.uid]).toEqual([0, 5000, 1, 5001]);
    const order: number[] = [];
    const c = pool.acquire(never).then((s) => (order.push(1), s));
    const d = pool.acquire(never).then((s) => (order.push(2), s));
    b.release();
    b.release(); // a second release is a no-op, not a second free slot
    expect((await c).index).toBe(1);
    a.release();
    expect((await d).index).toBe(0);
    expect(order).toEqual([1, 2]);
    expect(pool.idle).toBe(0);
  });

  it('drops a waiter on abort', async () => {
    const pool = new SlotPool({ size: 1, uidBase: 5000 });
    const held = await pool.acquire(never);
    const ac = new AbortController();
    const waiting = pool.acquire(ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    held.release();
    expect(pool.idle).toBe(1);
  });
});

describe('SlotPool warm and cold slots', () => {
  /** A manual timer: `fire()` runs what is due. */
  function manualTimer() {
    let pending: Array<{ fn: () => void; live: boolean }> = [];
    return {
      timer: (_ms: number, fn: () => void) => {
        const entry = { fn, live: true };
        pending.push(entry);
        return () => void (entry.live = false);
      },
      fire() {
        const due = pending;
        pending = [];
        for (const p of due) if (p.live) p.fn();
      },
    };
  }

  it('hands out the lowest free index, so the warm slots are reused first', async () => {
    const pool = new SlotPool({ size: 4, uidBase: 5000, warm: 1 });
    expect(pool.warmSlots().map((s) => s.index)).toEqual([0]);
    const held = await Promise.all([pool.acquire(never), pool.acquire(never), pool.acquire(never)]);
    expect(held.map((s) => s.index)).toEqual([0, 1, 2]);
    held[1]!.release();
    held[0]!.release();
    held[2]!.release();
    expect((await pool.acquire(never)).index).toBe(0);
    expect((await pool.acquire(never)).index).toBe(1);
  });

  it('tells its listeners when a cold slot stays idle, not when it is taken again first, and never for warm slots', async () => {
    const t = manualTimer();
    const pool = new SlotPool({ size: 3, uidBase: 5000, warm: 1, idleMs: 60_000, timer: t.timer });
    const idle: number[] = [];
    pool.onIdle((s) => idle.push(s.uid));
    const [a, b, c] = await Promise.all([pool.acquire(never), pool.acquire(never), pool.acquire(never)]);
    a!.release();
    b!.release();
    c!.release();
    const again = await pool.acquire(never); // slot 0 (warm)
    const cold = await pool.acquire(never); // slot 1: its idle notice is cancelled
    t.fire();
    expect(idle).toEqual([5002]);
    cold.release();
    again.release();
    t.fire();
    expect(idle).toEqual([5002, 5001]);
  });
});

describe('checkUidRange', () => {
  const dir = mkdtempSync(join(tmpdir(), 'uid-range-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const files = {
    passwd: file('passwd', 'root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n'),
    group: file('group', 'root:x:0:\nbuild:x:300010:\n'),
    subuid: file('subuid', 'alice:100000:65536\n'),
    subgid: file('subgid', 'alice:100000:65536\n'),
  };
  const code = (f: () => void) => {
    try {
      f();
      return null;
    } catch (e) {
      return e instanceof UidRangeError ? e.code : 'other';
    }
  };

  it('accepts a free range', () => {
    expect(code(() => checkUidRange(2_000_000_000, 64, files))).toBeNull();
  });

  it('names each kind of collision', () => {
    expect(code(() => checkUidRange(1000, 4, files))).toBe(UidRangeProblem.InUse); // alice's uid
    expect(code(() => checkUidRange(300_000, 16, files))).toBe(UidRangeProblem.InUse); // group build
    expect(code(() => checkUidRange(160_000, 16, files))).toBe(UidRangeProblem.InUse); // alice's subuid block
    expect(code(() => checkUidRange(65_530, 8, files))).toBe(UidRangeProblem.OutOfBounds); // nobody
    expect(code(() => checkUidRange(10, 8, files))).toBe(UidRangeProblem.OutOfBounds);
  });
});
