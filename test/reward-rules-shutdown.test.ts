import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, startService, waitForLine, type NatsServer } from './support/processes.ts';

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNatsServer();
});
afterAll(async () => {
  await nats?.stop();
});

describe('reward-rules graceful shutdown', () => {
  it('finishes an in-flight HTTP batch after SIGTERM, refuses new work, then exits 0', async () => {
    const svc = await startService('reward-rules', { NATS_URL: nats.url, LOG_LEVEL: 'debug' });
    try {
      // A batch that takes a while: one item runs into its 1.5 s budget.
      const slow = {
        items: [
          { data_source: 'math_dapo', solution_str: 'Answer: 1', ground_truth: '\\text{'.repeat(60_000), params: { timeout_ms: 1500 } },
          { data_source: 'openai/gsm8k', solution_str: '#### 18', ground_truth: '18' },
        ],
      };
      const inFlight = fetch(`${svc.baseUrl}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(slow),
        signal: AbortSignal.timeout(30_000),
      });
      await waitForLine(svc, /"msg":"batch received"/, 10_000);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
        svc.proc.once('exit', (code, signal) => res({ code, signal })),
      );
      svc.proc.kill('SIGTERM');
      await waitForLine(svc, /"msg":"shutting down"/, 10_000);
      const res = await inFlight;
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: unknown[] };
      expect(body.results).toEqual([
        { error: { code: 'timeout', message: 'scoring exceeded its 1500 ms budget' } },
        { score: 1, extra: { acc: true, pred: '18' } },
      ]);
      // A signal here (e.g. SIGABRT) is the process dying in its exit, not exiting: the output says why.
      expect(await exited, svc.output.slice(-20).join('\n')).toEqual({ code: 0, signal: null });
      await expect(fetch(`${svc.baseUrl}/healthz`, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
    } finally {
      await svc.stop();
    }
  });
});
