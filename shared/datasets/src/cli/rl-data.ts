import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AppError } from '@rl/service-kit/core';
import { Gsm8kFormat } from '../gsm8k.ts';
import { DEFAULT_STORY_OPTIONS, StoryContextPart } from '../story.ts';
import { convertGsm8k, convertStory } from './rl-data-convert.ts';
import { inspectParquet } from './rl-data-inspect.ts';
import { questionsOf, synthGsm8k } from './rl-data-synth.ts';
import { trainTokenizer } from './rl-data-tokenizer.ts';
import { PreTokenizerStyle } from '@rl/policy';

interface StoryFlags {
  dataSource: string;
  instruction: string;
  outputFormat: string;
  context: StoryContextPart;
  strict?: boolean;
  dryRun?: boolean;
  progress?: boolean;
}

const nonNegativeInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const ratio = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number between 0 and 1');
  return n;
};

const progressOption = () => new Option('--progress', 'show the progress bar even when stderr is not a terminal');
const strictOption = () => new Option('--strict', 'stop at the first broken record (default: skip it and report it)');
const dryRunOption = () => new Option('--dry-run', 'convert and print the summary, write nothing');

/** The `rl-data` program. */
export function buildProgram(): Command {
  const program = new Command('rl-data')
    .description('Convert data sets to verl-format parquet and look inside parquet files')
    .exitOverride()
    .showHelpAfterError();
  program
    .command('convert-story')
    .description(
      'story conversations ({system, conversations: [{from, value}]}) -> one verl sample per assistant reply. ' +
        'Input: .jsonl (one record per line; errors say "line N", counted from 1) or .json (one object, or an array; "record N", counted from 0).',
    )
    .argument('<input>', '.json or .jsonl file')
    .argument('<output>', 'parquet file to write')
    .option('--data-source <name>', 'verl data_source of every sample', DEFAULT_STORY_OPTIONS.dataSource)
    .option('--instruction <text>', 'system prompt text before the story setting', DEFAULT_STORY_OPTIONS.instruction)
    .option('--output-format <text>', 'system prompt text after the story setting', DEFAULT_STORY_OPTIONS.outputFormat)
    .addOption(
      new Option(
        '--context <part>',
        'what the prompt_without_context column leaves out (the context r of the info_gain reward): the story setting, the earlier turns, or both',
      )
        .choices(Object.values(StoryContextPart))
        .default(DEFAULT_STORY_OPTIONS.context),
    )
    .addOption(strictOption())
    .addOption(dryRunOption())
    .addOption(progressOption())
    .action((input: string, output: string, o: StoryFlags) =>
      convertStory(input, output, { dataSource: o.dataSource, instruction: o.instruction, outputFormat: o.outputFormat, context: o.context }, o),
    );
  program
    .command('convert-gsm8k')
    .description("raw GSM8K JSONL ({question, answer}) -> verl's GSM8K parquet (examples/data_preprocess/gsm8k*.py)")
    .argument('<input>', '.jsonl file (or .json array)')
    .argument('<output>', 'parquet file to write')
    .option('--split <name>', 'extra_info.split of every row', 'test')
    .addOption(
      new Option('--format <format>', 'plain: gsm8k.py; tool-agent: gsm8k_tool_agent_loop.py (system prompt, agent_name, tools_kwargs, interaction_kwargs)')
        .choices(Object.values(Gsm8kFormat))
        .default(Gsm8kFormat.Plain),
    )
    .addOption(strictOption())
    .addOption(dryRunOption())
    .addOption(progressOption())
    .action((input: string, output: string, o: { split: string; format: Gsm8kFormat; strict?: boolean; dryRun?: boolean; progress?: boolean }) =>
      convertGsm8k(input, output, o.split, o.format, o),
    );
  program
    .command('synth-gsm8k')
    .description(
      "synthetic GSM8K-style word problems (small numbers, 1-3 operations, a short worked solution) in verl's GSM8K parquet layout; deterministic per seed",
    )
    .argument('<output>', 'parquet file to write')
    .option('--count <n>', 'rows', positiveInt, 1000)
    .option('--seed <n>', 'generator seed', nonNegativeInt, 1)
    .option('--split <name>', 'extra_info.split of every row', 'train')
    .option('--hash-ratio <r>', 'share of worked solutions ending "#### N" (the rest end "The answer is N.")', ratio, 1)
    .option('--direct-ratio <r>', 'share of solutions that give the answer line alone, without the worked steps', ratio, 0)
    .option('--direct-hash-ratio <r>', 'share of those answer-only solutions that use "#### N" (default: --hash-ratio)', ratio)
    .option('--direct-wrong-ratio <r>', 'share of those answer-only solutions whose number is off by 1 to 3 (careless answers)', ratio, 0)
    .option('--instruction <text>', 'sentence appended to each question (default: verl\'s gsm8k.py instruction; "" for none)')
    .option('--max-ops <n>', 'most operations per problem', positiveInt, 3)
    .option('--max-amount <n>', 'largest start amount and largest gain or loss', positiveInt, 20)
    .option('--max-total <n>', 'largest running total', positiveInt, 99)
    .option('--exclude <files>', 'comma-separated parquet files whose questions (extra_info.question) must not appear (a held-out split)')
    .action(
      async (
        output: string,
        o: {
          count: number;
          seed: number;
          split: string;
          hashRatio: number;
          directRatio: number;
          directHashRatio?: number;
          directWrongRatio: number;
          instruction?: string;
          maxOps: number;
          maxAmount: number;
          maxTotal: number;
          exclude?: string;
        },
      ) =>
        synthGsm8k(output, {
          count: o.count,
          seed: o.seed,
          split: o.split,
          hashRatio: o.hashRatio,
          directRatio: o.directRatio,
          ...(o.directHashRatio !== undefined && { directHashRatio: o.directHashRatio }),
          directWrongRatio: o.directWrongRatio,
          ...(o.instruction !== undefined && { instruction: o.instruction }),
          ...(o.exclude !== undefined && { exclude: await questionsOf(o.exclude.split(',').filter((f) => f !== '')) }),
          problem: { maxOps: o.maxOps, maxAmount: o.maxAmount, maxTotal: o.maxTotal },
        }),
    );
  program
    .command('train-tokenizer')
    .description('learn a byte-level BPE tokenizer.json (ChatML specials) from text columns of parquet files')
    .argument('<output>', 'tokenizer.json to write')
    .argument('<inputs...>', 'parquet files')
    .option('--vocab-size <n>', 'vocabulary size, bytes and specials included', positiveInt, 1024)
    .option('--columns <list>', 'comma-separated columns; dotted paths follow structs, message lists give their contents', 'prompt')
    .addOption(
      new Option('--pretokenizer <style>', 'word splitting before merges').choices(Object.values(PreTokenizerStyle)).default(PreTokenizerStyle.WholeNumbers),
    )
    .action((output: string, inputs: string[], o: { vocabSize: number; columns: string; pretokenizer: PreTokenizerStyle }) =>
      trainTokenizer(output, inputs, {
        vocabSize: o.vocabSize,
        columns: o.columns
          .split(',')
          .map((c) => c.trim())
          .filter((c) => c !== ''),
        pretokenizer: o.pretokenizer,
      }),
    );
  program
    .command('inspect')
    .description('print the schema (nested types as pyarrow names them) and the first rows of a parquet file')
    .argument('<file>', 'parquet file')
    .option('--rows <n>', 'rows to print', nonNegativeInt, 3)
    .option('--json', 'print one JSON document instead of text')
    .action((file: string, o: { rows: number; json?: boolean }) => inspectParquet(file, o.rows, o.json ?? false));
  return program;
}

/** Runs the CLI. Exit codes: 0 ok, 1 the work failed, 2 the command line was wrong. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed the message (or the help, with exit code 0).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    const msg = err instanceof AppError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    process.stderr.write(`rl-data: ${msg}\n`);
    process.exitCode = 1;
  }
}
