// What the trainer's integration tests share: small GSM8K-style parquet
// splits, submitting a job over the trainer's HTTP API and following its event
// stream to a successful end, and whether this machine's Python has torch.
import { execFileSync } from 'node:child_process';
import { createParquetWriter, gsm8kFields, synthGsm8kRows } from '@rl/datasets';
import { expect } from 'vitest';
import { readSse } from '../../services/trainer/src/cli/sse.ts';

/** Whether /usr/bin/python3 imports torch (the PyTorch engine's tests skip without it). */
export const HAS_TORCH = (() => {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
})();

/** Writes `count` small synthetic GSM8K rows to `path`; returns their questions and solutions (tokenizer training text). */
export async function writeGsm8kSplit(path: string, count: number, seed: number, hashRatio: number): Promise<string[]> {
  const w = await createParquetWriter(path, gsm8kFields('plain'));
  const texts: string[] = [];
  for (const row of synthGsm8kRows({ count, seed, split: 'train', hashRatio, instruction: '', problem: { maxOps: 2, maxAmount: 9, maxTotal: 20 } })) {
    await w.write(row);
    texts.push(row.prompt[0]!.content, row.extra_info.answer);
  }
  await w.close();
  return texts;
}

/** One event of a job's stream. */
export type JobEvent = { type: string; state?: string; error?: string; step?: number; metrics?: Record<string, number>; message?: string };

/** Submits a job to the trainer at `baseUrl`. */
export async function submitJob(baseUrl: string, id: string, config: unknown): Promise<void> {
  const r = await fetch(`${baseUrl}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, config }) });
  expect(r.status, await r.clone().text()).toBe(201);
}

/** Follows a job's events to its end, which must be success; `onEvent` sees each as it comes. */
export async function followJob(baseUrl: string, id: string, onEvent: (e: JobEvent) => void = () => {}): Promise<JobEvent[]> {
  const res = await fetch(`${baseUrl}/v1/jobs/${id}/metrics?stream=true`);
  const events: JobEvent[] = [];
  for await (const m of readSse(res.body!)) {
    const e = JSON.parse(m.data) as JobEvent;
    events.push(e);
    onEvent(e);
  }
  const view = await (await fetch(`${baseUrl}/v1/jobs/${id}`)).text();
  expect(events.at(-1), view).toMatchObject({ type: 'state', state: 'succeeded' });
  return events;
}

/** Submits a job and follows it to a successful end. */
export async function runJob(baseUrl: string, id: string, config: unknown): Promise<JobEvent[]> {
  await submitJob(baseUrl, id, config);
  return followJob(baseUrl, id);
}

/** The metrics of each step event. */
export const jobSteps = (events: JobEvent[]) => events.filter((e) => e.type === 'step').map((e) => e.metrics!);
