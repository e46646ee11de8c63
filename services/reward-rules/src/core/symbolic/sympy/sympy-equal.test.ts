import { describe, expect, it } from 'vitest';
import { pyStrip } from '../../py/whitespace.ts';
import { pyTokenize } from '../cpython/py-tokenize.ts';
import { areEqualUnderSympy, shouldAllowEval } from './sympy-equal.ts';
import { implicitMultiplicationApplication } from './sympy-implicit.ts';
import { autoNumber, autoSymbol, factorialNotation, repeatedDecimals } from './sympy-transform.ts';

/** Token values after parse_expr's transformations, joined like the reference dump. */
function transformed(expr: string): string {
  let tokens = pyTokenize(pyStrip(expr));
  for (const step of [autoSymbol, repeatedDecimals, autoNumber, factorialNotation, implicitMultiplicationApplication]) {
    tokens = step(tokens);
  }
  return tokens
    .map((t) => t.v)
    .join(' ')
    .trim();
}

// Expected: sympy 1.14 transformations (standard + implicit_multiplication_application)
// applied to Python 3.11 tokenize output, and `simplify(parse_expr(...)) == 0`.
const PARSE_CASES: ReadonlyArray<readonly [string, string, boolean]> = [
  ['(2x)-(x*2)', "( Integer ( 2 ) * Symbol ( 'x' ) ) - ( Symbol ( 'x' ) * Integer ( 2 ) )", true],
  ['(xy)-(yx)', "( Symbol ( 'x' ) * Symbol ( 'y' ) ) - ( Symbol ( 'y' ) * Symbol ( 'x' ) )", true],
  ['(sqrt2)-(sqrt(2))', "( Symbol ( 's' ) * Symbol ( 'q' ) * Symbol ( 'r' ) * Symbol ( 't' ) * Number ( '2' ) ) - ( sqrt ( Integer ( 2 ) ) )", false],
  ['(2sqrt(3))-(sqrt(12))', '( Integer ( 2 ) * sqrt ( Integer ( 3 ) ) ) - ( sqrt ( Integer ( 12 ) ) )', true],
  ['(f(x))-(fx)', "( Symbol ( 'f' ) * ( Symbol ( 'x' ) ) ) - ( Symbol ( 'f' ) * Symbol ( 'x' ) )", true],
  ['(x2)-(2x)', "( Symbol ( 'x' ) * Number ( '2' ) ) - ( Integer ( 2 ) * Symbol ( 'x' ) )", true],
  ['(3!)-(6)', '( factorial ( Integer ( 3 ) ) ) - ( Integer ( 6 ) )', true],
  ['(3!!)-(3)', '( factorial2 ( Integer ( 3 ) ) ) - ( Integer ( 3 ) )', true],
  [
    '(0.2[1])-(19/90)',
    '( ( Integer ( Integer ( 0 ) ) + Rational ( Integer ( 2 ) , Integer ( 10 ) ) + Rational ( Integer ( 1 ) , Integer ( 90 ) ) ) ) - ( Integer ( 19 ) / Integer ( 90 ) )',
    true,
  ],
  ['(sqrtx)-(sqrt(x))', "( Symbol ( 's' ) * Symbol ( 'q' ) * Symbol ( 'r' ) * Symbol ( 't' ) * Symbol ( 'x' ) ) - ( sqrt ( Symbol ( 'x' ) ) )", false],
  ['(mu)-(mu)', "( Symbol ( 'mu' ) ) - ( Symbol ( 'mu' ) )", true],
  ['(x_1)-(x_1)', "( Symbol ( 'x_1' ) ) - ( Symbol ( 'x_1' ) )", true],
  ['(1e5)-(100000)', "( Float ( '1e5' ) ) - ( Integer ( 100000 ) )", true],
  ['(3j)-(3)', '( Integer ( 3 ) * I ) - ( Integer ( 3 ) )', false],
  ['(0x1f)-(31)', '( Integer ( 0x1f ) ) - ( Integer ( 31 ) )', true],
  ['(2(3))-(6)', '( Integer ( 2 ) * ( Integer ( 3 ) ) ) - ( Integer ( 6 ) )', true],
  ['(sqrt**2 x)-(x)', "( sqrt ( Symbol ( 'x' ) ) ** Integer ( 2 ) ) - ( Symbol ( 'x' ) )", true],
];

// Expected: mathruler are_equal_under_sympy(a, b) (sympy 1.14).
const EQUAL_CASES: ReadonlyArray<readonly [string, string, boolean]> = [
  ['2x', 'x*2', true],
  ['x^2-1', '(x-1)(x+1)', true],
  ['sqrt(x^2)', 'x', false],
  ['sqrt(x)sqrt(y)', 'sqrt(xy)', false],
  ['1/2', '0.5', true],
  ['0.2', '1/5', true],
  ['0.1+0.2', '0.3', false],
  ['sqrt(3)/2', '0.8660254037844386', false],
  ['1/3', '0.3333333333333333', false],
  ['2.0sqrt(2)', '2sqrt(2)', true],
  ['sqrt(2.0)', 'sqrt(2)', false],
  ['pi/pi', '1', true],
  ['12/(2.5)^1', '4.8', false],
  ['ln(4)', '2ln(2)', true],
  ['ln(x^2)', '2ln(x)', false],
  ['1/0', '1/0', false],
  ['oo', 'oo', false],
  ['1/oo', '0', true],
  ['5!', '120', true],
  ['re(3)', '3', true],
  ['abc', 'abc', false],
  ['2^{10}', '1024', false],
  ['2^(10)', '1024', false],
  ['10^10', '10000000000', false],
  ['9^9^9', '1', false],
  ['x(x+1)', 'x^2+x', true],
  ['(x+1)/(x+1)', '1', true],
  ['x/y', 'y/x', false],
  ['2^x*2^x', '4^x', true],
  ['e^2', 'e*e', true],
  ['3j', '3*sqrt(-1)', true],
  ['sqrt(-4)', '2sqrt(-1)', true],
  ['0.2[1]', '19/90', true],
  ['x!', 'x!', true],
  ['1,2', '1,2', false],
  ['x>1', 'x>1', false],
  ['a=b', 'a=b', false],
  ["f'(x)", "f'(x)", false],
  ['1//2', '0', true],
  ['(', ')', false],
];

// Expected: mathruler should_allow_eval(expr).
const ALLOW_CASES: ReadonlyArray<readonly [string, boolean]> = [
  ['(x)-(y)', true],
  ['(x)-(xyz)', false],
  ['(sqrt(2))-(frac)', true],
  ['(2^{3})-(8)', false],
  ['(2^(3))-(8)', false],
  ['(2^3^2)-(1)', false],
  ['(2^10)-(1024)', false],
  ['(2^9)-(512)', true],
  ['(pi)-(e)', false],
  ['(pi)-(x)', false],
  ['(αβ)-(γ)', false],
];

describe('sympy parse_expr port', () => {
  it.each(PARSE_CASES)('%j -> %j', (expr, tokens, zero) => {
    expect(transformed(expr)).toBe(tokens);
    const [a, b] = expr.slice(1, -1).split(')-(') as [string, string];
    expect(areEqualUnderSympy(a, b)).toBe(zero);
  });
});

describe('areEqualUnderSympy', () => {
  it.each(EQUAL_CASES)('%j vs %j -> %j', (a, b, expected) => {
    expect(areEqualUnderSympy(a, b)).toBe(expected);
  });

  it('gives up on huge inputs and factorials without hanging', () => {
    expect(areEqualUnderSympy('99999999!', '1')).toBe(false);
    expect(areEqualUnderSympy('2**2**2**2**2**2', '1')).toBe(false);
    expect(areEqualUnderSympy('1+'.repeat(2000) + '1', '2001')).toBe(false);
    expect(areEqualUnderSympy('('.repeat(300) + '1' + ')'.repeat(300), '1')).toBe(false);
  });
});

describe('shouldAllowEval', () => {
  it.each(ALLOW_CASES)('%j -> %j', (expr, expected) => {
    expect(shouldAllowEval(expr)).toBe(expected);
  });
});
