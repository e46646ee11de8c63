import { AppError, ErrorCode } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { AppliedOnce } from './applied-once.ts';

/** An application that counts its runs and waits for `gate` before replying. */
function counted(gate: Promise<void> = Promise.resolve()) {
  let runs = 0;
  return {
    runs: () => runs,
    apply: (reply: string) => async () => {
      runs++;
      await gate;
      return reply;
    },
  };
}

describe('AppliedOnce', () => {
  it('answers a repeated step with the stored reply instead of applying it again', async () => {
    const once = new AppliedOnce<string>();
    const c = counted();
    expect(await once.run(3, c.apply('first'))).toBe('first');
    expect(await once.run(3, c.apply('second'))).toBe('first');
    expect(c.runs()).toBe(1);
    expect(await once.run(4, c.apply('next'))).toBe('next');
    expect(c.runs()).toBe(2);
    expect(once.lastStep).toBe(4);
  });

  it('lets a repeat that arrives while the step is being applied wait for the same reply', async () => {
    const once = new AppliedOnce<string>();
    const gate = Promise.withResolvers<void>();
    const c = counted(gate.promise);
    const first = once.run(1, c.apply('applied'));
    const repeat = once.run(1, c.apply('again'));
    gate.resolve();
    expect(await Promise.all([first, repeat])).toEqual(['applied', 'applied']);
    expect(c.runs()).toBe(1);
  });

  it('forgets a failed application so that asking again applies it', async () => {
    const once = new AppliedOnce<string>();
    const failure = new AppError(ErrorCode.Internal, 'out of memory');
    await expect(once.run(2, async () => Promise.reject(failure))).rejects.toBe(failure);
    expect(once.lastStep).toBeNull();
    const c = counted();
    expect(await once.run(2, c.apply('retried'))).toBe('retried');
    expect(c.runs()).toBe(1);
  });
});
