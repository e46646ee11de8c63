import { createReadStream, createWriteStream } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { AppError } from '@rl/service-kit';
import type { ScoreItem, ScoreResult } from '@rl/service-kit';
import { batches, readItems } from './jsonl.ts';
import { httpScoreEndpoint, natsScoreEndpoint, type ScoreEndpoint } from './score-endpoints.ts';

interface ScoreOptions {
  dataSource?: string;
  solution?: string;
  groundTruth?: string;
  groundTruthJson?: string;
  params?: string;
  file?: string;
  out?: string;
  url: string;
  nats?: string;
  subject: string;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
  token?: string;
  natsUser?: string;
  natsPass?: string;
}

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

function parseJsonArg(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidArgumentError(`${flag} is not valid JSON`);
  }
}

function singleItem(o: ScoreOptions): ScoreItem {
  if (o.dataSource === undefined || o.solution === undefined || (o.groundTruth === undefined && o.groundTruthJson === undefined)) {
    throw new InvalidArgumentError('give --file, or all of --data-source, --solution and --ground-truth (or --ground-truth-json)');
  }
  const item: ScoreItem = {
    data_source: o.dataSource,
    solution_str: o.solution,
    ground_truth: (o.groundTruthJson !== undefined ? parseJsonArg('--ground-truth-json', o.groundTruthJson) : o.groundTruth) as ScoreItem['ground_truth'],
  };
  if (o.params !== undefined) item.params = parseJsonArg('--params', o.params) as ScoreItem['params'];
  return item;
}

async function countLines(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path)) for (const b of chunk as Buffer) if (b === 10) n++;
  return n;
}

/** Scores a JSONL file in batches, `concurrency` in flight, writing results in input order. */
async function scoreFile(t: ScoreEndpoint, o: ScoreOptions & { file: string }): Promise<void> {
  const out = o.out === undefined ? process.stdout : createWriteStream(o.out);
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'scoring [{bar}] {percentage}% | {value}/{total} items | {rate} items/s | eta {eta}s', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(await countLines(o.file), 0, { rate: 0 });
  const started = performance.now();
  let done = 0;
  const window: Array<Promise<ScoreResult[]>> = [];
  const flush = async () => {
    const results = await window.shift()!;
    for (const r of results) out.write(`${JSON.stringify(r)}\n`);
    done += results.length;
    bar.update(done, { rate: Math.round(done / ((performance.now() - started) / 1000)) });
  };
  for await (const batch of batches(readItems(o.file), o.batchSize)) {
    window.push(t.score(batch));
    if (window.length >= o.concurrency) await flush();
  }
  while (window.length > 0) await flush();
  bar.stop();
  if (out !== process.stdout) await new Promise<void>((res) => out.end(res));
}

/** The `rl-rewards` program. */
export function buildProgram(): Command {
  const program = new Command('rl-rewards').description('Score model outputs with the reward services over HTTP or NATS').showHelpAfterError();
  program
    .command('score')
    .description('score one item from flags, or a JSONL file of items (results as JSONL on stdout, progress on stderr)')
    .option('--data-source <name>', 'verl data_source, e.g. openai/gsm8k')
    .option('--solution <text>', 'the model output (solution_str)')
    .option('--ground-truth <text>', 'reference answer as a string')
    .option('--ground-truth-json <json>', 'reference answer as JSON, e.g. {"target":["paris"]}')
    .option('--params <json>', 'verl keyword options, e.g. {"method":"flexible"}')
    .option('--file <items.jsonl>', 'one ScoreItem per line')
    .option('--out <results.jsonl>', 'write results here instead of stdout')
    .addOption(new Option('--url <url>', 'reward service base URL').default('http://127.0.0.1:8101').env('RL_REWARDS_URL'))
    .addOption(new Option('--nats <servers>', 'use NATS instead of HTTP').env('NATS_URL'))
    .option('--subject <subject>', 'NATS subject', 'reward.rules.score')
    .option('--batch-size <n>', 'items per request', positiveInt, 512)
    .option('--concurrency <n>', 'requests in flight', positiveInt, 4)
    .option('--timeout-ms <ms>', 'per-request timeout', positiveInt, 120_000)
    .addOption(new Option('--token <token>', 'bearer token for HTTP').env('RL_REWARDS_TOKEN'))
    .addOption(new Option('--nats-user <user>', 'NATS user (`make up` and the deployments define `client`)').env('NATS_USER'))
    .addOption(new Option('--nats-pass <password>', 'password of the NATS user').env('NATS_PASS'))
    .action(async (o: ScoreOptions) => {
      const t =
        o.nats !== undefined
          ? await natsScoreEndpoint(o.nats, o.subject, o.timeoutMs, { user: o.natsUser, pass: o.natsPass })
          : httpScoreEndpoint(o.url, o.timeoutMs, o.token);
      try {
        if (o.file !== undefined) await scoreFile(t, { ...o, file: o.file });
        else process.stdout.write(`${JSON.stringify((await t.score([singleItem(o)]))[0])}\n`);
      } finally {
        await t.close();
      }
    });
  return program;
}

/** Runs the CLI; errors print their code and message and exit non-zero. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    const msg = err instanceof AppError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    process.stderr.write(`rl-rewards: ${msg}\n`);
    process.exitCode = err instanceof InvalidArgumentError ? 2 : 1;
  }
}
