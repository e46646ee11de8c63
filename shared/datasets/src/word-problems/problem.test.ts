import { describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { extractGsm8kSolution } from '../gsm8k.ts';
import { DEFAULT_PROBLEM_OPTIONS, generateProblem } from './problem.ts';
import { AnswerStyle, formatSolution } from './solution.ts';
import { synthGsm8kRows } from './synth-rows.ts';

const draw = (seed: number, n: number, o = DEFAULT_PROBLEM_OPTIONS) => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => generateProblem(rng, o));
};

describe('generateProblem', () => {
  it('is deterministic for a seed', () => {
    expect(draw(5, 50)).toEqual(draw(5, 50));
    expect(draw(5, 5)).not.toEqual(draw(6, 5));
  });

  it('chains one to three correct steps within the bounds, ending at the answer', () => {
    for (const p of draw(1, 2000)) {
      expect(p.steps.length).toBeGreaterThanOrEqual(1);
      expect(p.steps.length).toBeLessThanOrEqual(3);
      for (const [i, s] of p.steps.entries()) {
        const expected = { '+': s.left + s.right, '-': s.left - s.right, '*': s.left * s.right, '/': s.left / s.right }[s.op];
        expect(s.result).toBe(expected);
        expect(Number.isInteger(s.result) && s.result >= 0 && s.result <= 99).toBe(true);
        if (i > 0) expect(s.left).toBe(p.steps[i - 1]!.result);
      }
      expect(p.answer).toBe(p.steps.at(-1)!.result);
      // Every operand the solution needs is written in the question.
      for (const s of p.steps) expect(p.question).toContain(String(s.right));
    }
  });

  it('respects smaller bounds', () => {
    for (const p of draw(2, 500, { maxOps: 2, maxAmount: 10, maxTotal: 30 })) {
      expect(p.steps.length).toBeLessThanOrEqual(2);
      for (const s of p.steps) expect(s.result).toBeLessThanOrEqual(30);
    }
  });
});

describe('formatSolution', () => {
  it("writes one line per step, then GSM8K's #### answer or a sentence", () => {
    const p = {
      question: 'q',
      answer: 5,
      steps: [
        { left: 7, op: '+' as const, right: 1, result: 8 },
        { left: 8, op: '-' as const, right: 3, result: 5 },
      ],
    };
    expect(formatSolution(p, AnswerStyle.Hash)).toBe('7 + 1 = 8\n8 - 3 = 5\n#### 5');
    expect(formatSolution(p, AnswerStyle.Sentence)).toBe('7 + 1 = 8\n8 - 3 = 5\nThe answer is 5.');
    expect(formatSolution(p, AnswerStyle.Hash, false)).toBe('#### 5');
    expect(formatSolution(p, AnswerStyle.Sentence, false)).toBe('The answer is 5.');
  });
});

describe('synthGsm8kRows', () => {
  it("writes verl's GSM8K rows: prompt with the instruction, ground truth = the number after ####", () => {
    const rows = [...synthGsm8kRows({ count: 300, seed: 3, split: 'train', hashRatio: 0.3 })];
    expect(rows[0]).toMatchObject({ data_source: 'openai/gsm8k', ability: 'math', reward_model: { style: 'rule' }, extra_info: { index: 0, split: 'train' } });
    expect(rows[0]!.prompt[0]!.content).toBe(`${rows[0]!.extra_info.question} Let's think step by step and output the final answer after "####".`);
    const hashed = rows.filter((r) => r.extra_info.answer.includes('####'));
    expect(hashed.length / rows.length).toBeGreaterThan(0.2);
    expect(hashed.length / rows.length).toBeLessThan(0.4);
    for (const r of hashed) expect(extractGsm8kSolution(r.extra_info.answer)).toBe(r.reward_model.ground_truth);
    for (const r of rows.filter((x) => !x.extra_info.answer.includes('####')))
      expect(r.extra_info.answer.endsWith(`The answer is ${r.reward_model.ground_truth}.`)).toBe(true);
  });

  it('gives a share of answers without the worked steps, and leaves the rows of other options as they were', () => {
    const plain = [...synthGsm8kRows({ count: 300, seed: 5, split: 'train', hashRatio: 0.3 })];
    const mixed = [...synthGsm8kRows({ count: 300, seed: 5, split: 'train', hashRatio: 0.3, directRatio: 0.5 })];
    expect([...synthGsm8kRows({ count: 300, seed: 5, split: 'train', hashRatio: 0.3, directRatio: 0 })]).toEqual(plain);
    const direct = mixed.filter((r) => !r.extra_info.answer.includes('\n'));
    expect(direct.length / mixed.length).toBeGreaterThan(0.4);
    expect(direct.length / mixed.length).toBeLessThan(0.6);
    for (const r of direct) expect([`#### ${r.reward_model.ground_truth}`, `The answer is ${r.reward_model.ground_truth}.`]).toContain(r.extra_info.answer);
  });

  it('can give the answer-only solutions their own share of "#### N"', () => {
    const rows = [...synthGsm8kRows({ count: 400, seed: 6, split: 'train', hashRatio: 0.5, directRatio: 0.5, directHashRatio: 0 })];
    const direct = rows.filter((r) => !r.extra_info.answer.includes('\n'));
    const worked = rows.filter((r) => r.extra_info.answer.includes('\n'));
    for (const r of direct) expect(r.extra_info.answer).toBe(`The answer is ${r.reward_model.ground_truth}.`);
    const hashed = worked.filter((r) => r.extra_info.answer.endsWith(`#### ${r.reward_model.ground_truth}`)).length / worked.length;
    expect(hashed).toBeGreaterThan(0.4);
    expect(hashed).toBeLessThan(0.6);
  });

  it('can make a share of the answer-only solutions carelessly wrong, the ground truth and the other rows untouched', () => {
    const base = { count: 400, seed: 8, split: 'train', hashRatio: 0.3, directRatio: 0.5, directHashRatio: 0 };
    const plain = [...synthGsm8kRows(base)];
    expect([...synthGsm8kRows({ ...base, directWrongRatio: 0 })]).toEqual(plain);
    const rows = [...synthGsm8kRows({ ...base, directWrongRatio: 0.3 })];
    const direct = rows.filter((r) => !r.extra_info.answer.includes('\n'));
    const shown = (r: (typeof rows)[number]) => Number(/The answer is (\d+)\./.exec(r.extra_info.answer)![1]);
    const wrong = direct.filter((r) => shown(r) !== Number(r.reward_model.ground_truth));
    expect(wrong.length / direct.length).toBeGreaterThan(0.2);
    expect(wrong.length / direct.length).toBeLessThan(0.4);
    for (const r of wrong) {
      const off = Math.abs(shown(r) - Number(r.reward_model.ground_truth));
      expect(off).toBeGreaterThanOrEqual(1);
      expect(off).toBeLessThanOrEqual(3);
      expect(shown(r)).toBeGreaterThanOrEqual(0);
    }
    // Worked solutions stay right.
    for (const r of rows.filter((x) => x.extra_info.answer.includes('\n'))) {
      expect(
        r.extra_info.answer.endsWith(`#### ${r.reward_model.ground_truth}`) || r.extra_info.answer.endsWith(`The answer is ${r.reward_model.ground_truth}.`),
      ).toBe(true);
    }
  });

  it('can leave the instruction out', () => {
    const [row] = [...synthGsm8kRows({ count: 1, seed: 3, split: 'test', instruction: '' })];
    expect(row!.prompt[0]!.content).toBe(row!.extra_info.question);
  });
});
