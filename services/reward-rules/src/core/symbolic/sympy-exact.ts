// Arith for expressions without symbols, mimicking sympy's number semantics
// with mathjs: exact values (Integer, Rational, sqrt(2), pi, ...) are carried
// as 64-digit BigNumbers; a sympy Float is a 53-bit double, and Float op
// Rational/Float is done in double arithmetic as mpmath does at 15 digits,
// while Float op irrational stays exact (sympy keeps such sums symbolic).
import type { BigNumber } from 'mathjs';
import { BIG, BIG_E, BIG_PI, bignum, DBL, isBig, isComplex, isFiniteNum, magnitude, type Num, type Ops } from './mathjs-ops.ts';
import type { Arith, BinOp } from './sympy-eval.ts';
import { SympyParseError } from './py-tokenize.ts';

/** `rat`: exact rational; `flt`: sympy Float (a double); `exp`: any other exact value. */
export type ExactValue = { k: 'rat' | 'exp'; v: Num } | { k: 'flt'; v: number };

// sympy computes factorial(n) exactly; far past this it would run for a long time.
const MAX_FACTORIAL = 100_000n;
const MAX_RISING = 1_000n;

/** Significant digits sympy's Float(str) keeps: more than 15 raise its precision. */
function significantDigits(literal: string): number {
  const mantissa = literal.replace(/[eE].*$/, '').replace(/[-+.]/g, '');
  return mantissa.replace(/^0+/, '').length;
}

/** The exact counterpart of a value: a double's binary value, to 64 digits. */
function exactOf(x: ExactValue): Num {
  if (x.k !== 'flt') return x.v;
  return bignum(Number.isFinite(x.v) ? x.v.toPrecision(64) : x.v);
}

const doubleOf = (x: ExactValue): number => (x.k === 'flt' ? x.v : (x.v as BigNumber).toNumber());

// A real double result is a sympy Float; a complex one is Float*I, no longer a Number.
const asFloat = (v: Num): ExactValue => (typeof v === 'number' ? { k: 'flt', v } : { k: 'exp', v });

function applyOp(m: Ops, op: BinOp, a: Num, b: Num): Num {
  switch (op) {
    case '+':
      return m.add(a, b);
    case '-':
      return m.subtract(a, b);
    case '*':
      return m.multiply(a, b);
    case '/':
      return m.divide(a, b);
    case '**':
      return m.pow(a, b);
    case '//':
      if (isComplex(a) || isComplex(b)) throw new SympyParseError('floor of complex');
      return m.floor(m.divide(a, b));
  }
}

// sympy frac: x - floor(x) on each of the real and imaginary parts.
function fracPart(m: Ops, v: Num): Num {
  if (isComplex(v)) return DBL.complex(v.re - Math.floor(v.re), v.im - Math.floor(v.im));
  return m.subtract(v, m.floor(v));
}

/** Exact-mode arithmetic; `maxMagnitude` is the largest finite intermediate size seen. */
export class ExactArith implements Arith<ExactValue> {
  maxMagnitude: BigNumber = bignum(1);

  private note(x: ExactValue): ExactValue {
    const m = magnitude(x.v);
    if (m.isFinite() && m.gt(this.maxMagnitude)) this.maxMagnitude = m;
    return x;
  }

  integer(digits: string): ExactValue {
    return this.note({ k: 'rat', v: bignum(digits) });
  }

  float(literal: string): ExactValue {
    const text = literal.replaceAll('_', '');
    // A longer literal gets more precision in sympy; keeping it exact is the closer model.
    if (significantDigits(text) > 15) return this.note({ k: 'rat', v: bignum(text) });
    return this.note({ k: 'flt', v: Number(text) });
  }

  symbol(): ExactValue {
    throw new SympyParseError('symbol in exact mode');
  }

  constant(name: string): ExactValue {
    if (name === 'pi') return { k: 'exp', v: BIG_PI };
    if (name === 'E') return { k: 'exp', v: BIG_E };
    if (name === 'I') return { k: 'exp', v: BIG.complex(0, 1) };
    if (name === 'oo' || name === 'zoo') return { k: 'exp', v: bignum(Infinity) };
    if (name === 'nan') return { k: 'exp', v: bignum(NaN) };
    throw new SympyParseError(`${name} is not a number`);
  }

  asInteger(a: ExactValue): bigint | null {
    if (a.k !== 'rat' || !isBig(a.v) || !a.v.isInteger()) return null;
    return BigInt(a.v.toFixed());
  }

  neg(a: ExactValue): ExactValue {
    return a.k === 'flt' ? { k: 'flt', v: -a.v } : { k: a.k, v: BIG.unaryMinus(a.v) };
  }

  binary(op: BinOp, a: ExactValue, b: ExactValue): ExactValue {
    const numbers = a.k !== 'exp' && b.k !== 'exp';
    if (numbers && (a.k === 'flt' || b.k === 'flt')) return this.note(asFloat(applyOp(DBL, op, doubleOf(a), doubleOf(b))));
    const v = applyOp(BIG, op, exactOf(a), exactOf(b));
    // Rational op Rational stays Rational, except under a non-integer power.
    const rational = a.k === 'rat' && b.k === 'rat' && isBig(v) && (op !== '**' || (b.v as BigNumber).isInteger());
    return this.note({ k: rational ? 'rat' : 'exp', v });
  }

  call(name: string, args: ExactValue[]): ExactValue {
    const [x, k] = args;
    const binary = name === 'ff' || name === 'rf';
    if (x === undefined || args.length !== (binary ? 2 : 1)) throw new SympyParseError(`${name} arity`);
    if (name === 'factorial' || name === 'factorial2') return this.factorial(name, x);
    if (binary) return this.rising(name, x, k as ExactValue);
    // sympy evaluates a function of a Float numerically, to a Float.
    const m = x.k === 'flt' ? DBL : BIG;
    const fns: Record<string, (v: Num) => Num> = {
      sqrt: m.sqrt,
      ln: m.log,
      csc: m.csc,
      re: m.re,
      im: m.im,
      frac: (v) => fracPart(m, v),
    };
    const fn = fns[name];
    if (fn === undefined) throw new SympyParseError(`unsupported function ${name}`);
    const r = fn(x.v);
    return this.note(x.k === 'flt' ? asFloat(r) : { k: 'exp', v: r });
  }

  private factorial(name: string, x: ExactValue): ExactValue {
    const n = this.asInteger(x);
    // Only exact integer arguments are evaluated here; sympy keeps the rest symbolic.
    if (n === null || n > MAX_FACTORIAL) throw new SympyParseError(`${name} argument`);
    if (n < 0n) return { k: 'exp', v: bignum(Infinity) };
    const step = name === 'factorial' ? 1n : 2n;
    let acc: Num = bignum(1);
    for (let i = n; i > 1n; i -= step) acc = BIG.multiply(acc, bignum(i.toString()));
    return this.note({ k: 'rat', v: acc });
  }

  private rising(name: string, x: ExactValue, k: ExactValue): ExactValue {
    const n = this.asInteger(k);
    if (n === null || n < 0n || n > MAX_RISING) throw new SympyParseError(`${name} order`);
    let acc = this.integer('1');
    for (let i = 0n; i < n; i++) acc = this.binary('*', acc, this.binary(name === 'rf' ? '+' : '-', x, this.integer(i.toString())));
    return acc;
  }
}

/** Whether an exact-mode difference is zero as sympy's `simplify(diff) == 0` finds. */
export function isExactZero(d: ExactValue, maxMagnitude: BigNumber): boolean {
  if (!isFiniteNum(d.v)) return false;
  // A Float difference is zero only when its double arithmetic cancelled exactly.
  if (d.k === 'flt') return d.v === 0;
  // mathjs keeps complex values as doubles: compare at double precision.
  if (isComplex(d.v)) return magnitude(d.v).lte(maxMagnitude.times('1e-12'));
  return magnitude(d.v).lte(maxMagnitude.times('1e-40'));
}
