// GSM8K-style word problems with small numbers and one to three operations,
// drawn deterministically from a seeded Rng: a start amount (or a product of
// containers and items), then gains and losses, and optionally a fair split.
// Each problem carries its worked solution as a list of steps.
import type { Rng } from '@rl/service-kit/core';
import { PEOPLE, THINGS, type Person, type Thing } from './vocabulary.ts';

/** One arithmetic step of the worked solution. */
export interface Step {
  left: number;
  op: '+' | '-' | '*' | '/';
  right: number;
  result: number;
}

/** A generated problem. */
export interface WordProblem {
  question: string;
  steps: Step[];
  answer: number;
}

/** Bounds of the generator. */
export interface ProblemOptions {
  /** Most operations in one problem. @default 3 */
  maxOps: number;
  /** Largest start amount and largest gain or loss. @default 20 */
  maxAmount: number;
  /** Largest running total. @default 99 */
  maxTotal: number;
}

export const DEFAULT_PROBLEM_OPTIONS: ProblemOptions = { maxOps: 3, maxAmount: 20, maxTotal: 99 };

const step = (left: number, op: Step['op'], right: number): Step => ({
  left,
  op,
  right,
  result: op === '+' ? left + right : op === '-' ? left - right : op === '*' ? left * right : left / right,
});

function start(rng: Rng, who: Person, what: Thing, o: ProblemOptions, useProduct: boolean): { text: string; total: number; steps: Step[] } {
  if (useProduct) {
    const boxes = rng.int(2, Math.min(6, Math.floor(o.maxTotal / 2)));
    const each = rng.int(2, Math.max(2, Math.min(9, Math.floor(o.maxTotal / boxes))));
    const s = step(boxes, '*', each);
    return {
      text: `${who.name} has ${boxes} ${what.container}s of ${what.plural}. Each ${what.container} holds ${each} ${what.plural}.`,
      total: s.result,
      steps: [s],
    };
  }
  const total = rng.int(2, o.maxAmount);
  return { text: `${who.name} has ${total} ${what.plural}.`, total, steps: [] };
}

function event(rng: Rng, who: Person, other: Person, total: number, o: ProblemOptions): { text: string; step: Step } | null {
  const canGain = total < o.maxTotal;
  const canLose = total > 1;
  if (!canGain && !canLose) return null;
  if (canGain && (!canLose || rng.next() < 0.5)) {
    const n = rng.int(1, Math.min(o.maxAmount, o.maxTotal - total));
    const text = rng.pick([`${who.subject} buys ${n} more.`, `${who.subject} finds ${n} more.`, `${other.name} gives ${who.object} ${n} more.`]);
    return { text, step: step(total, '+', n) };
  }
  const n = rng.int(1, Math.min(o.maxAmount, total - 1));
  const text = rng.pick([`${who.subject} gives ${n} to ${other.name}.`, `${who.subject} loses ${n}.`, `${who.subject} sells ${n}.`]);
  return { text, step: step(total, '-', n) };
}

/** Draws one problem. */
export function generateProblem(rng: Rng, options: ProblemOptions = DEFAULT_PROBLEM_OPTIONS): WordProblem {
  const who = rng.pick(PEOPLE);
  let other = rng.pick(PEOPLE);
  while (other.name === who.name) other = rng.pick(PEOPLE);
  const what = rng.pick(THINGS);
  const ops = rng.int(1, options.maxOps);
  const first = start(rng, who, what, options, rng.next() < 0.3);
  const sentences = [first.text];
  const steps = [...first.steps];
  let total = first.total;
  // A fair split is the last operation, only where it divides evenly.
  const divisors = (n: number) => [2, 3, 4, 5].filter((d) => n % d === 0 && n / d >= 1);
  while (steps.length < ops) {
    const isLast = steps.length === ops - 1;
    if (isLast && rng.next() < 0.3 && divisors(total).length > 0) {
      const d = rng.pick(divisors(total));
      steps.push(step(total, '/', d));
      sentences.push(`${who.subject} shares them equally among ${d} friends. How many ${what.plural} does each friend get?`);
      return { question: sentences.join(' '), steps, answer: total / d };
    }
    const e = event(rng, who, other, total, options);
    if (e === null) break;
    sentences.push(e.text);
    steps.push(e.step);
    total = e.step.result;
  }
  sentences.push(`How many ${what.plural} does ${who.name} have now?`);
  return { question: sentences.join(' '), steps, answer: total };
}
