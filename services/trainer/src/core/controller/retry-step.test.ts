import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { describeStepRetry, retryStep, stepRetryDelayMs, type StepRetry } from './retry-step.ts';

const transport = (code: ErrorCode) => new AppError(code, `${code} on the bus`, { retryable: true });

/** A step that fails with `failures` in order, then returns its attempt number; records every call. */
function flakyStep(failures: unknown[]) {
  const calls: number[] = [];
  return {
    calls,
    run: async (attempt: number) => {
      calls.push(attempt);
      const err = failures[attempt - 1];
      if (err !== undefined) throw err;
      return attempt;
    },
  };
}

/** A sleep that records its delays and returns at once. */
function instantSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

describe('retryStep', () => {
  it('re-runs a step after transport failures with doubling delays and returns its result', async () => {
    const step = flakyStep([transport(ErrorCode.Unavailable), transport(ErrorCode.NoResponders), transport(ErrorCode.Timeout)]);
    const { delays, sleep } = instantSleep();
    const retries: StepRetry[] = [];
    const out = await retryStep(7, step.run, { attempts: 4, baseDelayMs: 100, maxDelayMs: 10_000, sleep, onRetry: (r) => retries.push(r) });
    expect(out).toBe(4);
    expect(step.calls).toEqual([1, 2, 3, 4]);
    expect(delays).toEqual([100, 200, 400]);
    expect(retries.map((r) => [r.step, r.attempt, r.error.code])).toEqual([
      [7, 1, 'unavailable'],
      [7, 2, 'no_responders'],
      [7, 3, 'timeout'],
    ]);
  });

  it('retries what the error itself calls retryable (the kit table), sandbox_unavailable included', async () => {
    const step = flakyStep([new AppError(ErrorCode.SandboxUnavailable, 'no sandbox'), new AppError(ErrorCode.Busy, 'full')]);
    const { delays, sleep } = instantSleep();
    await expect(retryStep(1, step.run, { attempts: 3, baseDelayMs: 10, sleep })).resolves.toBe(3);
    expect(delays).toEqual([10, 20]);
  });

  it('never retries a validation error, a bug, or an error its thrower marked final', async () => {
    const final = new AppError(ErrorCode.Timeout, 'the job deadline passed', { retryable: false });
    for (const err of [new AppError(ErrorCode.ValidationFailed, 'bad batch'), new TypeError('a bug'), final]) {
      const step = flakyStep([err]);
      const { delays, sleep } = instantSleep();
      await expect(retryStep(1, step.run, { sleep })).rejects.toBe(err);
      expect(step.calls).toEqual([1]);
      expect(delays).toEqual([]);
    }
  });

  it('gives up after the last attempt with the last error', async () => {
    const last = transport(ErrorCode.Timeout);
    const step = flakyStep([transport(ErrorCode.Unavailable), last]);
    const { delays, sleep } = instantSleep();
    await expect(retryStep(2, step.run, { attempts: 2, baseDelayMs: 50, sleep })).rejects.toBe(last);
    expect(step.calls).toEqual([1, 2]);
    expect(delays).toEqual([50]);
  });

  it('stops waiting and retrying when the job is cancelled during a backoff', async () => {
    const step = flakyStep([transport(ErrorCode.Unavailable)]);
    const cancel = new AbortController();
    const sleeping = Promise.withResolvers<void>();
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_, reject) => {
        sleeping.resolve();
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const run = retryStep(3, step.run, { sleep, signal: cancel.signal });
    await sleeping.promise; // gate: the first attempt failed and the backoff began
    cancel.abort(new AppError(ErrorCode.Unavailable, 'job cancelled'));
    await expect(run).rejects.toMatchObject({ message: 'job cancelled' });
    expect(step.calls).toEqual([1]);
  });

  it('caps the delay and rejects a nonsensical attempt count', async () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => stepRetryDelayMs(n, 1_000, 5_000))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
    await expect(retryStep(1, async () => 1, { attempts: 0 })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('describes a retry with its step, attempt and error code', () => {
    const line = describeStepRetry({ step: 2, attempt: 1, attempts: 4, delayMs: 1_000, error: transport(ErrorCode.Timeout) });
    expect(line).toMatch(/^retrying step 2 in 1000 ms: attempt 1 of 4 failed \(timeout: /);
  });
});
