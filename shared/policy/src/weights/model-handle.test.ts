import { describe, expect, it } from 'vitest';
import { ModelHandle } from './model-handle.ts';

class Fake {
  disposed = 0;
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  dispose() {
    this.disposed++;
  }
}

describe('ModelHandle', () => {
  it('keeps a swapped-out model alive until its last lease is released', () => {
    const v1 = new Fake('v1');
    const v2 = new Fake('v2');
    const handle = new ModelHandle(v1);
    const a = handle.acquire();
    const b = handle.acquire();
    expect(handle.inFlight()).toBe(2);
    handle.swap(v2);
    expect(handle.current).toBe(v2);
    expect(handle.acquire().model).toBe(v2);
    expect(a.model).toBe(v1);
    a.release();
    a.release(); // idempotent
    expect(v1.disposed).toBe(0);
    b.release();
    expect(v1.disposed).toBe(1);
    expect(v2.disposed).toBe(0);
  });

  it('disposes an idle model at once on swap, and the current one on close when idle', () => {
    const v1 = new Fake('v1');
    const v2 = new Fake('v2');
    const handle = new ModelHandle(v1);
    handle.swap(v2);
    expect(v1.disposed).toBe(1);
    {
      using lease = handle.acquire();
      handle.close();
      expect(lease.model).toBe(v2);
      expect(v2.disposed).toBe(0);
    }
    expect(v2.disposed).toBe(1);
    expect(() => handle.current).toThrow(/closed/);
  });
});
