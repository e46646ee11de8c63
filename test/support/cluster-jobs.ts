// What the NATS cluster and bus tests share: a training split whose rewards come from
// two services (math rows for reward-rules, code rows for reward-sandbox), a
// job's event stream, a JetStream stream's cluster view, and holding a service
// process stopped.
import { readFileSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { createParquetWriter, gsm8kFields } from '@rl/datasets';
import { readSse } from '../../services/trainer/src/cli/sse.ts';
import type { ServiceProcess } from './processes.ts';

/** One row of the mixed split. */
export interface MixedRow {
  data_source: string;
  prompt: string;
  ground_truth: string;
}

/**
 * `count` rows alternating between a sum (openai/gsm8k, scored by reward-rules)
 * and a program to write (codecontests, scored by reward-sandbox against one case).
 */
export function codeAndMathRows(count: number): MixedRow[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { data_source: 'openai/gsm8k', prompt: `${i} + 3 = ?`, ground_truth: String(i + 3) }
      : { data_source: 'codecontests', prompt: `print ${i}`, ground_truth: JSON.stringify({ inputs: [''], outputs: [`${i}\n`] }) },
  );
}

/** Writes `rows` as a verl RL split (gsm8k's plain columns). */
export async function writeMixedSplit(path: string, rows: readonly MixedRow[]): Promise<void> {
  const w = await createParquetWriter(path, gsm8kFields('plain'));
  for (const [i, r] of rows.entries()) {
    await w.write({
      data_source: r.data_source,
      prompt: [{ role: 'user', content: r.prompt }],
      ability: r.data_source === 'codecontests' ? 'code' : 'math',
      reward_model: { ground_truth: r.ground_truth, style: 'rule' },
      extra_info: { answer: r.ground_truth, index: i, question: r.prompt, split: 'train' },
    });
  }
  await w.close();
}

/** One event of a job's stream. */
export type ClusterJobEvent = { type: string; state?: string; step?: number; message?: string; metrics?: Record<string, number> };

/** Follows a job's event stream (replayed from its start) until its final state. */
export async function followJob(baseUrl: string, id: string): Promise<ClusterJobEvent[]> {
  const res = await fetch(`${baseUrl}/v1/jobs/${id}/metrics?stream=true`);
  const events: ClusterJobEvent[] = [];
  for await (const m of readSse(res.body!)) {
    const e = JSON.parse(m.data) as ClusterJobEvent;
    events.push(e);
    if (e.type === 'state' && (e.state === 'succeeded' || e.state === 'failed' || e.state === 'cancelled')) break;
  }
  return events;
}

/** What a JetStream stream's info says about its replicas. */
export interface StreamClusterInfo {
  config: { num_replicas: number };
  cluster?: { leader?: string; replicas?: Array<{ name: string; current: boolean }> };
}

/** `$JS.API.STREAM.INFO` of `stream` (the raw API: the tests depend on no JetStream client). */
export async function streamInfo(nc: NatsConnection, stream: string): Promise<StreamClusterInfo> {
  const reply = (await nc.request(`$JS.API.STREAM.INFO.${stream}`, undefined, { timeout: 10_000 })).json<
    StreamClusterInfo & { error?: { description: string } }
  >();
  if (reply.error !== undefined) throw new Error(`stream info ${stream}: ${reply.error.description}`);
  return reply;
}

/** Stops `p`'s process group (SIGSTOP) and resolves once the kernel reports its leader stopped. */
export async function pauseProcessGroup(p: ServiceProcess): Promise<void> {
  const pid = p.proc.pid!;
  process.kill(-pid, 'SIGSTOP');
  // Field 3 of /proc/<pid>/stat is the state; the command name before it is in parentheses.
  while (!/\) T /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) await new Promise<void>((r) => setImmediate(r));
}
