// Synthetic GSM8K in verl's layout (examples/data_preprocess/gsm8k.py):
// `prompt` is the question plus verl's instruction, `reward_model.ground_truth`
// the answer, `extra_info.answer` the worked solution. A share of solutions
// ends "The answer is N." instead of "#### N", and a share may give the answer
// alone without the worked steps (some of those carelessly off), as imperfect
// SFT data does.
import { createRng } from '@rl/service-kit/core';
import { gsm8kRow, type Gsm8kRow } from '../gsm8k.ts';
import { DEFAULT_PROBLEM_OPTIONS, generateProblem, type ProblemOptions } from './problem.ts';
import { AnswerStyle, formatSolution } from './solution.ts';

/** Options of {@link synthGsm8kRows}. */
export interface SynthOptions {
  count: number;
  seed: number;
  split: string;
  /** Share of solutions that end with `#### N` (the rest: `The answer is N.`). @default 1 */
  hashRatio?: number;
  /** Share of solutions that give the answer line alone, without the worked steps. @default 0 */
  directRatio?: number;
  /** Share of those answer-only solutions that use `#### N`. @default hashRatio */
  directHashRatio?: number;
  /** Share of those answer-only solutions whose number is off by 1 to 3 (careless answers; the ground truth stays right). @default 0 */
  directWrongRatio?: number;
  /** Replaces verl's instruction sentence; '' for none. @default verl's */
  instruction?: string;
  problem?: ProblemOptions;
  /** Questions never to produce (e.g. those of the training files, so a test split is held out). */
  exclude?: ReadonlySet<string>;
}

/** Draws `count` rows; the same options always give the same rows. */
export function* synthGsm8kRows(o: SynthOptions): Generator<Gsm8kRow> {
  const rng = createRng(o.seed);
  const hashRatio = o.hashRatio ?? 1;
  for (let index = 0; index < o.count; index++) {
    let problem = generateProblem(rng, o.problem ?? DEFAULT_PROBLEM_OPTIONS);
    while (o.exclude?.has(problem.question)) problem = generateProblem(rng, o.problem ?? DEFAULT_PROBLEM_OPTIONS);
    let style = rng.next() < hashRatio ? AnswerStyle.Hash : AnswerStyle.Sentence;
    // Drawn only when asked for, so rows of the other options stay what they were.
    const worked = !((o.directRatio ?? 0) > 0 && rng.next() < (o.directRatio ?? 0));
    if (!worked && o.directHashRatio !== undefined) style = rng.next() < o.directHashRatio ? AnswerStyle.Hash : AnswerStyle.Sentence;
    let shown = problem.answer;
    if (!worked && (o.directWrongRatio ?? 0) > 0 && rng.next() < (o.directWrongRatio ?? 0)) {
      const off = rng.int(1, 3);
      shown = problem.answer >= off && rng.next() < 0.5 ? problem.answer - off : problem.answer + off;
    }
    const raw = { question: problem.question, answer: formatSolution(problem, style, worked, shown), solution: String(problem.answer) };
    yield gsm8kRow(raw, index, o.split, 'plain', o.instruction);
  }
}
