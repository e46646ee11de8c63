// `make bench` (story part): p50/p99 of a single story score request end to end
// (HTTP and NATS, one item: its reply, user input, story, history and reference
// embedded by the shipped default model), against a real service process.
import { connect } from '@nats-io/transport-node';
import { REPLIES, storyItem } from '../../services/reward-story/src/core/testing/story-fixture.ts';
import { startNatsServer, startService } from '../support/processes.ts';
import { percentile, timeIt } from './timing.ts';

const RUNS = Number(process.env.BENCH_STORY_RUNS ?? 300);

// A distinct reply per request, so the embedding cache does not answer it.
const body = (i: number) => JSON.stringify({ items: [storyItem(`${REPLIES.good} (${i})`)] });

const nats = await startNatsServer();
const svc = await startService('reward-story', { NATS_URL: nats.url, LOG_LEVEL: 'info' });
const nc = await connect({ servers: nats.url });
try {
  const http = await timeIt(
    RUNS,
    async (i) => {
      const r = await fetch(`${svc.baseUrl}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
      if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
      await r.json();
    },
    10,
  );
  const viaNats = await timeIt(
    RUNS,
    async (i) => {
      const m = await nc.request('reward.story.score', body(1_000_000 + i), { timeout: 10_000 });
      if (m.headers?.get('Nats-Service-Error-Code')) throw new Error(m.string());
    },
    10,
  );
  console.log(`story score, one item per request, sequential (${RUNS} runs), default model`);
  for (const [name, xs] of [
    ['HTTP POST /v1/score', http],
    ['NATS reward.story.score', viaNats],
  ] as const) {
    console.log(`${name.padEnd(28)} p50 ${percentile(xs, 50).toFixed(2)} ms   p99 ${percentile(xs, 99).toFixed(2)} ms`);
  }
} finally {
  await nc.close();
  await svc.stop();
  await nats.stop();
}
