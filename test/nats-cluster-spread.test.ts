// Reward capacity across a NATS cluster: two reward-rules instances, each
// connected to its own node of three (the full server list, its node first).
// The queue group spans the cluster: requests from a node without an instance
// spread over both, and the services API ($SRV.STATS, `nats micro stats`)
// shows each instance's share (nats-server 2.9 picks any member at random, a
// member on the requester's own node included). A stopped instance
// does not hold the trainer's reward batch: each request has its deadline, is
// retried, and once the servers drop the unresponsive connection (ping_interval
// x ping_max) every retry lands on the other instance.
import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { createRng, requestJson, ScoreResponse } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRewardClient, natsScoreTransport } from '@rl/client';
import { pauseProcessGroup } from './support/cluster-jobs.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsCluster, type NatsCluster } from './support/nats-cluster.ts';
import { startService, type ServiceProcess } from './support/processes.ts';

const SUBJECT = 'reward.rules.score';
const item = (i: number) => ({ data_source: 'openai/gsm8k', solution_str: `#### ${i}`, ground_truth: String(i % 3) });

let cluster: NatsCluster;
/** reward-rules on n1 and on n2; nothing on n0. */
let rules: ServiceProcess[] = [];
const clients: NatsConnection[] = [];

async function clientOn(node: number): Promise<NatsConnection> {
  const nc = await connectTestClient(cluster.nodes[node]!.url);
  clients.push(nc);
  return nc;
}

/** Requests each instance (by its services-API id) has answered on SUBJECT. */
async function servedByInstance(nc: NatsConnection): Promise<Map<string, number>> {
  const served = new Map<string, number>();
  for await (const s of await new Svcm(nc).client({ strategy: 'count', maxMessages: 2, maxWait: 10_000 }).stats('reward-rules')) {
    served.set(s.id, s.endpoints?.find((e) => e.subject === SUBJECT)?.num_requests ?? 0);
  }
  expect(served.size).toBe(2);
  return served;
}

beforeAll(async () => {
  // The servers drop a client that leaves 3 pings a second apart unanswered (the default is 2 minutes x 2).
  cluster = await startNatsCluster({ extra: ['ping_interval: "1s"', 'ping_max: 3'] });
  rules = await Promise.all([1, 2].map((home) => startService('reward-rules', { NATS_URL: cluster.urlFor(home), SCORE_WORKERS: '1' })));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((nc) => nc.close()));
  await Promise.all(rules.map((s) => s.stop()));
  await cluster?.stop();
});

describe('reward-rules instances on two nodes of a cluster', () => {
  it.each([
    ['a third node', 0],
    ["one instance's node", 1],
  ])(
    'share the requests from %s, and $SRV.STATS shows each one its share',
    async (_, node) => {
      const nc = await clientOn(node);
      const before = await servedByInstance(nc);
      const n = 60;
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) => requestJson(nc, SUBJECT, { items: [item(i)] }, { timeoutMs: 20_000, response: ScoreResponse })),
      );
      expect(replies.every((r) => r.results.length === 1 && 'score' in r.results[0]!)).toBe(true);
      const shares = [...(await servedByInstance(nc))].map(([id, k]) => k - before.get(id)!);
      expect(shares[0]! + shares[1]!).toBe(n);
      // Each request goes to either member at random: one of them getting all 60 has odds of 2^-59.
      for (const s of shares) expect(s).toBeGreaterThan(0);
    },
    60_000,
  );

  it('score a whole batch while one instance is stopped: deadline, retry, and the other instance', async () => {
    const nc = await clientOn(0);
    await pauseProcessGroup(rules[0]!);
    try {
      const client = createRewardClient({
        transport: natsScoreTransport(nc),
        routes: { default: SUBJECT },
        timeoutMs: 2_000,
        retries: 8,
        concurrency: 4,
        maxBatchSize: 1,
        backoffMs: 100,
        maxBackoffMs: 500,
        rng: createRng(1),
      });
      const items = Array.from({ length: 32 }, (_, i) => item(i));
      const { results, stats } = await client.score(items);
      expect(results.map((r) => r.error)).toEqual(items.map(() => null));
      expect(results.map((r) => r.score)).toEqual(items.map((it) => (it.solution_str === `#### ${it.ground_truth}` ? 1 : 0)));
      // Some of the 32 one-item requests went to the stopped instance and timed out (none of them: odds of 2^-32).
      expect(stats.retries).toBeGreaterThanOrEqual(1);
      expect(stats.requests).toBe(items.length + stats.retries);
    } finally {
      process.kill(-rules[0]!.proc.pid!, 'SIGCONT');
    }
  }, 90_000);
});
