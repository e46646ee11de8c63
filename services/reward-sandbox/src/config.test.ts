import { describe, expect, it } from 'vitest';
import { slotBounds } from './config.ts';

describe('slotBounds', () => {
  it('defaults to cores always, 16 × cores (at most 256) while CPU allows', () => {
    expect(slotBounds({}, 2)).toEqual({ floor: 2, max: 32 });
    expect(slotBounds({}, 64)).toEqual({ floor: 64, max: 256 });
  });

  it('keeps the old fixed count when only SANDBOX_CONCURRENCY is set', () => {
    expect(slotBounds({ SANDBOX_CONCURRENCY: 1 }, 2)).toEqual({ floor: 1, max: 1 });
  });

  it('takes both bounds when set, and refuses a ceiling under the floor', () => {
    expect(slotBounds({ SANDBOX_CONCURRENCY: 1, SANDBOX_MAX_SLOTS: 8 }, 2)).toEqual({ floor: 1, max: 8 });
    expect(slotBounds({ SANDBOX_MAX_SLOTS: 1 }, 2)).toEqual({ floor: 1, max: 1 });
    expect(() => slotBounds({ SANDBOX_CONCURRENCY: 4, SANDBOX_MAX_SLOTS: 2 }, 2)).toThrow(RangeError);
  });
});
