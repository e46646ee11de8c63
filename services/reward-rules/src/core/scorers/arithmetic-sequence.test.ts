import { describe, expect, it } from 'vitest';
import { arithmeticAnswer, arithmeticSequenceScorer } from './arithmetic-sequence.ts';

const score = (solution: string, groundTruth: unknown, extraInfo?: Record<string, unknown>) =>
  arithmeticSequenceScorer.score({ solution, groundTruth, params: { sequence_reward: 1 }, extraInfo });

// Expected values follow task.py by hand: per-token reward 1/(len(answer)+1).
describe('arithmetic_sequence (verl digit completion)', () => {
  it('generates the ground-truth continuation with wrap-around, as task.py does', () => {
    expect(arithmeticAnswer('9,10:20,2')).toBe('11,12');
    expect(arithmeticAnswer('7,8:20,0')).toBe('');
    expect(arithmeticAnswer('6,2:9,6')).toBe('7,3,8,4,0,5'); // diff (2-6)%9 = 5
    expect(arithmeticAnswer('18,0:20,3')).toBe('2,4,6');
  });

  it('rewards each matching character up to the first mismatch', () => {
    const full = score('11,12E', '9,10:20,2');
    expect(full.score).toBeCloseTo(5 / 6, 12);
    expect(full.extra).toMatchObject({ acc: true, exact: true, matched: 5, ground_truth_response: '11,12' });
    expect(full.extra.token_rewards).toEqual([1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 0]);
    const partial = score('11,13', '9,10:20,2');
    expect(partial.score).toBeCloseTo(4 / 6, 12);
    expect(partial.extra).toMatchObject({ acc: false, exact: false });
    expect(score('11,12,13', '9,10:20,2').extra).toMatchObject({ acc: true, exact: false }); // all answer characters, then more
    expect(score('', '9,10:20,2').score).toBe(0);
    expect(score('x11,12', '9,10:20,2').score).toBe(0);
  });

  it('the main-module examples of task.py', () => {
    expect(score('', '7,8:20,0').score).toBe(0);
    expect(score('E000', '7,8:20,0')).toMatchObject({ score: 0, extra: { acc: true, exact: true } });
    expect(score('11,12,13', '9,10:20,2')).toMatchObject({ extra: { exact: false, matched: 5 } });
  });

  it('reads the prompt from extra_info when ground_truth is absent, and rejects a malformed one', () => {
    expect(score('7', '', { prompt: '5,6:20,1' }).extra.exact).toBe(true);
    expect(() => score('1', 'not a prompt')).toThrow(/ground_truth must be the task prompt/);
    expect(() => score('1', null)).toThrow(/ground_truth/);
  });
});
