// `rl-train config.yaml`: submits a job to the trainer service, then follows its
// events: a progress bar on stderr and one summary line per step on stdout.
// Ctrl-C cancels the job (its checkpoints stay; submit again to resume).
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import cliProgress from 'cli-progress';
import { parse as parseYaml } from 'yaml';
import { readSse } from './sse.ts';
import { curveValue, stepLine, valScore } from './step-line.ts';

interface Options {
  url: string;
  token?: string;
  set: string[];
  id?: string;
  follow: boolean;
  progress?: boolean;
}

type Event = {
  type: string;
  state?: string;
  error?: string;
  step?: number;
  total_steps?: number;
  metrics?: Record<string, number>;
  dir?: string;
  message?: string;
};

export async function main(argv: string[]): Promise<number> {
  const program = new Command('rl-train')
    .description('Train with GRPO/PPO on the trainer service: submit a verl-style job config and watch it')
    .argument('<config>', 'job config (.yaml or .json)')
    .option('--url <url>', 'trainer service', process.env.TRAINER_URL ?? 'http://127.0.0.1:8105')
    .addOption(new Option('--token <token>', 'bearer token of a trainer started with AUTH_TOKEN').env('RL_TRAIN_TOKEN'))
    .option(
      '--set <key=value>',
      'override a config key (repeatable), e.g. --set trainer.total_training_steps=10',
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option('--id <id>', 'job id (default: generated)')
    .option('--no-follow', 'submit and exit')
    .option('--progress', 'draw the progress bar even when stderr is not a terminal')
    .exitOverride();
  let file: string;
  let opts: Options;
  try {
    program.parse(argv, { from: 'user' });
    file = program.args[0]!;
    opts = program.opts<Options>();
  } catch (err) {
    return (err as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  let config: unknown;
  try {
    config = parseYaml(await readFile(file, 'utf8'));
  } catch (err) {
    console.error(`rl-train: ${file}: ${(err as Error).message}`);
    return 2;
  }
  const auth: Record<string, string> = opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` };
  const submit = await fetch(`${opts.url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ config, overrides: opts.set, ...(opts.id !== undefined && { id: opts.id }) }),
    signal: AbortSignal.timeout(30_000),
  }).catch((err: unknown) => {
    console.error(`rl-train: cannot reach the trainer at ${opts.url} (${(err as Error).message}); is the stack up? (make up)`);
    return null;
  });
  if (submit === null) return 1;
  const body = (await submit.json()) as { id?: string; detail?: string; title?: string };
  if (!submit.ok) {
    const hint = submit.status === 401 ? '\n(the trainer runs with AUTH_TOKEN: pass it with --token or RL_TRAIN_TOKEN)' : '';
    console.error(`rl-train: job refused (${submit.status}):\n${body.detail ?? body.title ?? JSON.stringify(body)}${hint}`);
    return submit.status === 400 || submit.status === 401 ? 2 : 1;
  }
  const id = body.id!;
  console.log(`job ${id} submitted to ${opts.url}`);
  if (!opts.follow) return 0;
  const cancel = () => {
    console.error(`\nrl-train: cancelling job ${id}`);
    void fetch(`${opts.url}/v1/jobs/${id}`, { method: 'DELETE', headers: auth, signal: AbortSignal.timeout(10_000) }).finally(() => process.exit(130));
  };
  process.once('SIGINT', cancel);
  const res = await fetch(`${opts.url}/v1/jobs/${id}/metrics?stream=true`, { headers: { accept: 'text/event-stream', ...auth } });
  if (!res.ok || res.body === null) {
    console.error(`rl-train: cannot follow job ${id}: HTTP ${res.status}`);
    return 1;
  }
  const showBar = opts.progress === true || process.stderr.isTTY;
  const bar = showBar
    ? new cliProgress.SingleBar(
        { format: 'training [{bar}] {value}/{total} steps | eta {eta_formatted}', stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const scores: number[] = [];
  let lastVal: number | undefined;
  let final: Event | undefined;
  let lost: unknown;
  const events = readSse(res.body)[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<{ event: string; data: string }>;
    try {
      next = await events.next();
    } catch (err) {
      lost = err;
      break;
    }
    if (next.done === true) break;
    const e = JSON.parse(next.value.data) as Event;
    if (e.type === 'step' && e.metrics !== undefined) {
      const total = e.total_steps ?? e.step ?? 0;
      scores.push(curveValue(e.metrics));
      lastVal = valScore(e.metrics) ?? lastVal;
      if (bar !== null && !bar.isActive) bar.start(total, 0);
      bar?.update(e.step ?? 0);
      if (bar !== null) process.stderr.write('\r\x1b[2K');
      console.log(stepLine(e.step ?? 0, total, e.metrics, scores, lastVal));
    } else if (e.type === 'validation' && e.metrics !== undefined) {
      lastVal = valScore(e.metrics) ?? lastVal;
      console.log(
        `validation at step ${e.step}: ${Object.entries(e.metrics)
          .filter(([k]) => k.includes('/mean@') || k === 'val/loss')
          .map(([k, v]) => `${k}=${v.toFixed(3)}`)
          .join(' ')}`,
      );
    } else if (e.type === 'log' && e.message !== undefined) {
      console.log(e.message);
    } else if (e.type === 'checkpoint') {
      console.log(`checkpoint at step ${e.step}: ${e.dir}`);
    } else if (e.type === 'state' && ['succeeded', 'failed', 'cancelled'].includes(e.state ?? '')) {
      final = e;
    }
  }
  bar?.stop();
  process.off('SIGINT', cancel);
  if (final === undefined) {
    const why =
      lost === undefined ? 'it ended early' : `${(lost as Error).message}${(lost as Error).cause ? ` (${((lost as Error).cause as Error).message})` : ''}`;
    console.error(`rl-train: lost the event stream of job ${id}: ${why}; the job goes on in the trainer (GET ${opts.url}/v1/jobs/${id})`);
    return 1;
  }
  console.log(`job ${id} ${final.state}${final.error ? `: ${final.error}` : ''}`);
  return final.state === 'succeeded' ? 0 : 1;
}
