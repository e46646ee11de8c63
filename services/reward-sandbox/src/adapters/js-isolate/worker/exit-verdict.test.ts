import { describe, expect, it } from 'vitest';
import { addressSpaceLimitBytes } from './address-space.ts';
import { exitVerdict } from './exit-verdict.ts';
import type { WorkerExit } from './worker-process.ts';

const exit = (extra: Partial<WorkerExit>): WorkerExit => ({ code: null, signal: null, killedFor: null, stderrTail: '', ...extra });

describe('exitVerdict', () => {
  it.each([
    ['killed at the deadline', exit({ signal: 'SIGKILL', killedFor: 'deadline' }), 'time-limit'],
    ['killed for an abort', exit({ signal: 'SIGKILL', killedFor: 'abort' }), 'aborted'],
    ['killed at shutdown', exit({ signal: 'SIGKILL', killedFor: 'close' }), 'closed'],
    ['killed for a protocol violation', exit({ signal: 'SIGKILL', killedFor: 'JS_WORKER_PROTOCOL' }), 'crashed'],
    ['a SIGKILL nobody here sent (the OOM killer)', exit({ signal: 'SIGKILL' }), 'memory-limit'],
    [
      'V8 out of memory in the worker',
      exit({ signal: 'SIGTRAP', stderrTail: '# Fatal process out of memory: NewSpace::EnsureCurrentCapacity' }),
      'memory-limit',
    ],
    [
      'Node heap exhaustion',
      exit({ signal: 'SIGABRT', stderrTail: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory' }),
      'memory-limit',
    ],
    ['a segfault with nothing on stderr', exit({ signal: 'SIGSEGV' }), 'crashed'],
    ['an ordinary non-zero exit', exit({ code: 1, stderrTail: 'TypeError: x is not a function' }), 'crashed'],
  ] as const)('%s', (_, e, verdict) => {
    expect(exitVerdict(e)).toBe(verdict);
  });
});

describe('addressSpaceLimitBytes', () => {
  it('is the measured baseline plus the memory limit plus the margin', () => {
    expect(addressSpaceLimitBytes(5 * 2 ** 30, 64, 256)).toBe(5 * 2 ** 30 + 320 * 2 ** 20);
  });
});
