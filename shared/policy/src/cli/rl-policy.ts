// `rl-policy`: the policy from the command line.
//
//   rl-policy logprobs --model DIR [--engine jax] [--adapter DIR] [--batch-size N]
//
// reads JSON lines {"prompt_ids": [...], "response_ids": [...]} on stdin and
// writes one line {"logprobs": [...], "entropies": [...]} per input line, in
// order: one value per response token, log p(response[t] | prompt,
// response[<t]) and the entropy of that next-token distribution (the policy
// worker's `logprobs` verb). Blank lines are skipped. A bad line stops the run:
// the lines before it are answered, the error (naming the line and the field)
// goes to stderr, and the exit status is 1.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { ENGINE_NAMES, engine, type OpenScorer, type Scorer } from './engines.ts';
import { parseScoreLine } from './score-line.ts';
import type { TokenPair } from '../generation/score.ts';

/** The streams a run reads and writes (the process's, or a test's). */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

const USAGE = `usage: rl-policy logprobs --model DIR [--engine ${ENGINE_NAMES.join('|')}] [--adapter DIR] [--batch-size N]

  Scores token ids with a Hugging Face model directory (config.json and its
  safetensors weights; no tokenizer files needed). Reads JSON lines
  {"prompt_ids": [...], "response_ids": [...]} on stdin; writes one line
  {"logprobs": [...], "entropies": [...]} per input line, in order.

  --model DIR       the model directory (e.g. a job's hf_model)
  --engine NAME     the engine that computes it (${ENGINE_NAMES.join(', ')}; default jax);
                    torch runs in $RL_TORCH_PYTHON (default /usr/bin/python3)
  --adapter DIR     a PEFT LoRA adapter directory (adapter_config.json and
                    adapter_model.safetensors) applied to the model: merged
                    into the weights by jax, run as an adapter by torch
  --batch-size N    lines scored together (default 16); answers come per batch
`;

const usageError = (message: string) => new AppError(ErrorCode.BadRequest, `${message}\n\n${USAGE}`);

interface LogprobsOptions {
  model: string;
  adapter: string | undefined;
  open: OpenScorer;
  batchSize: number;
}

function parseOptions(argv: string[]): LogprobsOptions {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        model: { type: 'string' },
        engine: { type: 'string', default: 'jax' },
        adapter: { type: 'string' },
        'batch-size': { type: 'string', default: '16' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw usageError((err as Error).message);
  }
  if (positionals[0] !== 'logprobs')
    throw usageError(positionals[0] === undefined ? 'a command is required' : `unknown command ${JSON.stringify(positionals[0])}`);
  if (positionals.length > 1) throw usageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  if (typeof values.model !== 'string' || values.model === '') throw usageError('--model DIR is required');
  if (values.adapter === '') throw usageError('--adapter: expected a directory');
  const batchSize = Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw usageError(`--batch-size: expected a positive integer, got ${JSON.stringify(values['batch-size'])}`);
  return { model: values.model, adapter: values.adapter as string | undefined, open: engine(String(values.engine)), batchSize };
}

/** Writes `text`, waiting while the stream's buffer is full. */
function write(out: Writable, text: string): Promise<void> {
  return out.write(text) ? Promise.resolve() : new Promise((resolve) => out.once('drain', resolve));
}

async function runLogprobs(scorer: Scorer, batchSize: number, io: CliIo): Promise<void> {
  let pending: TokenPair[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const scored = await scorer.score(pending);
    pending = [];
    await write(io.stdout, scored.map((s) => `${JSON.stringify(s)}\n`).join(''));
  };
  let lineNo = 0;
  try {
    for await (const line of createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
      lineNo++;
      if (line.trim() === '') continue;
      let pair: TokenPair;
      try {
        pair = parseScoreLine(line, lineNo, scorer);
      } catch (err) {
        await flush();
        throw err;
      }
      pending.push(pair);
      if (pending.length >= batchSize) await flush();
    }
    await flush();
  } finally {
    scorer.dispose();
  }
}

/** Runs the CLI; returns the exit status (0 done, 1 bad input or a failure, 2 bad usage). */
export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    await write(io.stdout, USAGE);
    return 0;
  }
  let options: LogprobsOptions;
  try {
    options = parseOptions(argv);
  } catch (err) {
    await write(io.stderr, `rl-policy: ${(err as Error).message}\n`);
    return 2;
  }
  try {
    await runLogprobs(await options.open(options.model, options.adapter), options.batchSize, io);
    return 0;
  } catch (err) {
    await write(io.stderr, `rl-policy logprobs: ${(err as Error).message}\n`);
    return 1;
  }
}
