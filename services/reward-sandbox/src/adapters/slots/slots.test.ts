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
