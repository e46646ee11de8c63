import { describe, expect, it } from 'vitest';
import { AppError, createRng, ErrorCode, type ScoreRequest, type ScoreResponse } from '@rl/service-kit';
import { createRewardClient, type RewardClientOptions } from './reward-client.ts';
import type { RewardItem, ScoreTransport } from './reward-types.ts';

/** A fake reward service: score 1 when the solution equals the ground truth; records every request. */
function fakeService(behave: (subject: string, body: ScoreRequest, call: number) => ScoreResponse | Error | undefined = () => undefined) {
  const calls: Array<{ subject: string; items: ScoreRequest['items'] }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const transport: ScoreTransport = async (subject, body) => {
    const call = calls.length;
    calls.push({ subject, items: body.items });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      // Yield a few ticks so concurrent requests overlap as they would on the bus.
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      const special = behave(subject, body, call);
      if (special instanceof Error) throw special;
      if (special !== undefined) return special;
      return {
        results: body.items.map((it) => {
          const acc = it.solution_str === it.ground_truth;
          return { score: acc ? 1 : 0, extra: { acc, subject, params: it.params ?? null } };
        }),
      };
    } finally {
      inFlight--;
    }
  };
  return { transport, calls, maxInFlight: () => maxInFlight };
}

const sleeps: number[] = [];
function client(transport: ScoreTransport, overrides: Partial<RewardClientOptions> = {}) {
  sleeps.length = 0;
  return createRewardClient({
    transport,
    routes: {
      'openai/gsm8k': 'reward.rules.score',
      'aime*': 'reward.aime.score',
      'aime2024_*': 'reward.aime24.score',
      apps: 'reward.sandbox.score',
      default: 'reward.rules.score',
    },
    timeoutMs: 1000,
    retries: 3,
    concurrency: 2,
    maxBatchSize: 100,
    backoffMs: 100,
    maxBackoffMs: 1000,
    rng: createRng(42),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
}

const item = (data_source: string, solution_str: string, ground_truth = '1'): RewardItem => ({ data_source, solution_str, ground_truth });
const errorOf = (code: ErrorCode, message: string = code) => new AppError(code, message);

describe('reward client routing and order', () => {
  it('marks the results of a reply that says its scoring is deterministic, and only those', async () => {
    const svc = fakeService((subject, body) =>
      subject === 'reward.rules.score' ? { results: body.items.map(() => ({ score: 1, extra: {} })), deterministic: true } : undefined,
    );
    const { results } = await client(svc.transport).score([
      { data_source: 'openai/gsm8k', solution_str: '1', ground_truth: '1' },
      { data_source: 'apps', solution_str: '1', ground_truth: '1' },
    ]);
    expect(results.map((r) => r.deterministic)).toEqual([true, undefined]);
  });

  it('routes by exact name, then longest prefix, then default; unrouted items get unknown_data_source', async () => {
    const svc = fakeService();
    const items = [item('openai/gsm8k', '1'), item('aime2025', '1'), item('aime2024_II', '0'), item('apps', '1'), item('other', '1')];
    const { results } = await client(svc.transport).score(items);
    expect(results.map((r) => r.extra['subject'])).toEqual([
      'reward.rules.score',
      'reward.aime.score',
      'reward.aime24.score',
      'reward.sandbox.score',
      'reward.rules.score',
    ]);
    expect(results.map((r) => r.score)).toEqual([1, 1, 0, 1, 1]);

    const strict = client(svc.transport, { routes: { apps: 'reward.sandbox.score' } });
    const out = await strict.score([item('apps', '1'), item('openai/gsm8k', '1')]);
    expect(out.results[0]?.score).toBe(1);
    expect(out.results[1]).toMatchObject({ score: null, error: { code: ErrorCode.UnknownDataSource } });
  });

  it('keeps input order across subjects and chunks, bounded by max batch size and concurrency', async () => {
    const svc = fakeService();
    const items = Array.from({ length: 23 }, (_, i) => item(i % 3 === 0 ? 'apps' : 'openai/gsm8k', String(i), String(i % 2 === 0 ? i : -1)));
    const { results, stats } = await client(svc.transport, { maxBatchSize: 4, concurrency: 3 }).score(items);
    expect(results.map((r) => r.score)).toEqual(items.map((_, i) => (i % 2 === 0 ? 1 : 0)));
    expect(svc.calls.every((c) => c.items.length <= 4)).toBe(true);
    expect(svc.calls).toHaveLength(2 + 4); // 8 apps items in 2 chunks, 15 gsm8k items in 4
    expect(svc.maxInFlight()).toBe(3);
    expect(stats).toEqual({ requests: 6, retries: 0, splits: 0, itemsBySubject: { 'reward.sandbox.score': 8, 'reward.rules.score': 15 } });
  });

  it('merges default params per data source under item params', async () => {
    const svc = fakeService();
    const c = client(svc.transport, { defaultParams: { 'openai/gsm8k': { method: 'flexible', format_score: 0.1 } } });
    await c.score([{ ...item('openai/gsm8k', '1'), params: { method: 'strict' } }, item('apps', '1')]);
    const sent = svc.calls.flatMap((call) => call.items);
    expect(sent.find((i) => i.data_source === 'openai/gsm8k')?.params).toEqual({ method: 'strict', format_score: 0.1 });
    expect(sent.find((i) => i.data_source === 'apps')).not.toHaveProperty('params');
  });

  it('layers subject params under the data source defaults and the item params', async () => {
    const svc = fakeService();
    const c = client(svc.transport, {
      subjectParams: { 'reward.sandbox.score': { memory_limit_mb: 512, timeout: 5 }, 'reward.rules.score': { method: 'flexible' } },
      defaultParams: { apps: { timeout: 7 } },
    });
    await c.score([{ ...item('apps', '1'), params: { memory_limit_mb: 256 } }, item('apps', '2'), item('openai/gsm8k', '1')]);
    const sent = svc.calls.flatMap((call) => call.items);
    expect(sent.map((i) => i.params)).toEqual([{ memory_limit_mb: 256, timeout: 7 }, { memory_limit_mb: 512, timeout: 7 }, { method: 'flexible' }]);
  });
});

describe('reward client failures', () => {
  // One decision: the error's own `retryable` (the kit's ERROR_STATUS table unless the thrower said otherwise).
  it.each([
    ['no_responders', errorOf(ErrorCode.NoResponders)],
    ['timeout', errorOf(ErrorCode.Timeout)],
    ['busy', errorOf(ErrorCode.Busy)],
    ['unavailable', errorOf(ErrorCode.Unavailable)],
    ['sandbox_unavailable', errorOf(ErrorCode.SandboxUnavailable)],
    ['an untyped transport failure', new Error('socket closed')],
  ])('retries a request that failed with %s', async (_name, failure) => {
    const svc = fakeService((_s, _b, call) => (call === 0 ? failure : undefined));
    const { results, stats } = await client(svc.transport).score([item('openai/gsm8k', '1')]);
    expect(results[0]?.score).toBe(1);
    expect(stats).toMatchObject({ requests: 2, retries: 1, splits: 0 });
  });

  it.each([
    ['validation_failed', errorOf(ErrorCode.ValidationFailed)],
    ['upstream_error', errorOf(ErrorCode.UpstreamError)],
    ['internal', errorOf(ErrorCode.Internal)],
    ['a timeout its thrower marked final', new AppError(ErrorCode.Timeout, 'deadline of the whole call', { retryable: false })],
  ])('does not retry a request that failed with %s: the lone item gets the error', async (_name, failure) => {
    const svc = fakeService(() => failure);
    const { results, stats } = await client(svc.transport).score([item('openai/gsm8k', '1')]);
    expect(results[0]?.error?.code).toBe(failure.code);
    expect(stats).toMatchObject({ requests: 1, retries: 0 });
  });

  it('gives up on sandbox_unavailable after the retries, like no_responders', async () => {
    const svc = fakeService(() => errorOf(ErrorCode.SandboxUnavailable, 'no sandbox'));
    const err = await client(svc.transport, { retries: 1 })
      .score([item('apps', '1')])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.SandboxUnavailable, retryable: true, details: { subject: 'reward.sandbox.score', attempts: 2, items: 1 } });
    expect(svc.calls).toHaveLength(2);
  });

  it('retries retryable failures with growing, jittered backoff, then succeeds', async () => {
    const svc = fakeService((_s, _b, call) =>
      call === 0 ? errorOf(ErrorCode.Timeout) : call === 1 ? errorOf(ErrorCode.Busy) : call === 2 ? new Error('socket closed') : undefined,
    );
    const { results, stats } = await client(svc.transport).score([item('openai/gsm8k', '1'), item('openai/gsm8k', '2')]);
    expect(results.map((r) => r.score)).toEqual([1, 0]);
    expect(stats).toMatchObject({ requests: 4, retries: 3 });
    expect(sleeps).toHaveLength(3);
    // attempt k waits within [c/2, c] for c = min(1000, 100 * 2^k).
    for (const [k, ms] of sleeps.entries()) {
      const ceiling = Math.min(1000, 100 * 2 ** k);
      expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ms).toBeLessThanOrEqual(ceiling);
    }
  });

  it('gives up after retries + 1 attempts with a clear, typed error', async () => {
    const svc = fakeService(() => errorOf(ErrorCode.NoResponders, 'no service is listening on reward.rules.score'));
    const err = await client(svc.transport, { retries: 2 })
      .score([item('openai/gsm8k', '1')])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.NoResponders);
    expect((err as AppError).message).toBe(
      'rewards on reward.rules.score: gave up after 3 attempts for 1 items: no service is listening on reward.rules.score',
    );
    expect(svc.calls).toHaveLength(3);
  });

  it('passes per-item errors through without retrying', async () => {
    const svc = fakeService(() => ({
      results: [{ score: 1, extra: { acc: true } }, { error: { code: ErrorCode.InvalidGroundTruth, message: 'ground_truth: bad' } }],
    }));
    const { results, stats } = await client(svc.transport).score([item('openai/gsm8k', '1'), item('openai/gsm8k', '1')]);
    expect(results).toEqual([
      { score: 1, extra: { acc: true }, error: null },
      { score: null, extra: {}, error: { code: ErrorCode.InvalidGroundTruth, message: 'ground_truth: bad' } },
    ]);
    expect(stats.requests).toBe(1);
  });

  it('isolates an item a service rejects as a whole request, scoring the rest', async () => {
    const svc = fakeService((_s, body) =>
      body.items.some((i) => i.solution_str === 'BAD') ? errorOf(ErrorCode.ValidationFailed, 'items[0].solution_str: too long') : undefined,
    );
    const items = ['1', 'x', 'BAD', '1', '1'].map((s) => item('openai/gsm8k', s));
    const { results, stats } = await client(svc.transport).score(items);
    expect(results.map((r) => r.score)).toEqual([1, 0, null, 1, 1]);
    expect(results[2]?.error).toEqual({ code: ErrorCode.ValidationFailed, message: 'items[0].solution_str: too long' });
    expect(stats.splits).toBe(2); // [5] → [3] + [2] → [2] + [1]
  });

  it('loses no item when a responder is killed mid-batch: its request times out and is retried on the survivor', async () => {
    // Two instances share the subject round-robin (even calls on A); A dies while serving its second
    // request (call 2), which then times out; from then on the queue group routes everything to B.
    let aliveA = true;
    const servedBy: string[] = [];
    const svc = fakeService((_s, _b, call) => {
      const onA = aliveA && call % 2 === 0;
      servedBy.push(onA ? 'A' : 'B');
      if (onA && call === 2) {
        aliveA = false;
        return errorOf(ErrorCode.Timeout, 'no reply on reward.rules.score within 1000 ms');
      }
      return undefined;
    });
    const items = Array.from({ length: 20 }, (_, i) => item('openai/gsm8k', String(i), String(i)));
    const { results, stats } = await client(svc.transport, { maxBatchSize: 3, concurrency: 3 }).score(items);
    expect(results.map((r) => r.score)).toEqual(items.map(() => 1));
    expect(stats).toMatchObject({ requests: 8, retries: 1 });
    expect(servedBy.filter((x) => x === 'A')).toEqual(['A', 'A']);
    // The lost chunk was sent again, whole, to the survivor.
    const lost = svc.calls[2]?.items.map((i) => i.solution_str);
    expect(svc.calls.slice(3).filter((c) => JSON.stringify(c.items.map((i) => i.solution_str)) === JSON.stringify(lost))).toHaveLength(1);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const svc = fakeService(() => {
      controller.abort(new AppError(ErrorCode.Unavailable, 'job cancelled'));
      return errorOf(ErrorCode.Busy);
    });
    await expect(client(svc.transport).score([item('openai/gsm8k', '1')], { signal: controller.signal })).rejects.toThrow('job cancelled');
    expect(svc.calls).toHaveLength(1);
  });
});
