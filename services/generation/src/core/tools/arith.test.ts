import { describe, expect, it } from 'vitest';
import { evaluateArithmetic, formatNumber } from './arith.ts';

describe('evaluateArithmetic', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['16 - 3 - 4', 9],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2^2', -4],
    ['2^-1', 0.5],
    ['7 // 2', 3],
    ['-7 // 2', -4],
    ['-7 % 3', 2],
    ['7 % -3', -2],
    ['sqrt(16) + abs(-2)', 6],
    ['max(1, 5, 3) - min(4, 2)', 3],
    ['log(8, 2)', 3],
    ['round(2.5) + floor(1.9) + ceil(1.1)', 6],
    ['2 * pi', 2 * Math.PI],
    ['.5 + 1e2', 100.5],
    ['  3  ', 3],
  ])('%s = %d', (src, value) => {
    expect(evaluateArithmetic(src)).toBeCloseTo(value, 12);
  });

  it.each([
    ['', /empty/],
    ['1 +', /end of expression/],
    ['(1 + 2', /expected '\)'/],
    ['1 / 0', /division by zero/],
    ['2 3', /unexpected 3 at position 2/],
    ['import os', /unknown name 'import'/],
    ['__proto__(1)', /unknown function/],
    ['constructor', /unknown name/],
    ['sqrt(1, 2)', /takes 1 arguments/],
    ['1; 2', /unexpected character ";" at position 1/],
    ['10 ^ 400', /not a finite number/],
    ['-'.repeat(100) + '1', /nested too deeply/],
    ['1+'.repeat(600) + '1', /longer than/],
  ])('refuses %j', (src, message) => {
    expect(() => evaluateArithmetic(src)).toThrow(message);
  });
});

describe('formatNumber', () => {
  it('prints integral values exactly and others to 15 significant digits', () => {
    expect(formatNumber(18)).toBe('18');
    expect(formatNumber(2 ** 60)).toBe('1152921504606846976');
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(10 / 3)).toBe('3.33333333333333');
  });
});
