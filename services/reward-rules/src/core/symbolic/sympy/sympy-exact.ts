// Arith for expressions without symbols, mimicking sympy's number semantics
// with mathjs 64-digit BigNumbers: exact values (Integer, Rational, sqrt(2),
// pi, ...) are carried as they are; a sympy Float is a binary float of its
// precision (53 bits, more for literals of 16+ digits). As in sympy, Float op
// Rational/Float rounds both operands and the result to that precision. Float
// op irrational is computed exactly, where sympy keeps a symbolic term whose
// coefficients it rounds: see isExactZero for how the two are reconciled.
import type { BigNumber } from 'mathjs';
import { BIG, bignum, isBig, isComplex, isFiniteNum, magnitude, type Num } from './mathjs-ops.ts';
import type { Arith, BinOp } from './sympy-eval.ts';
import { asRational, constantValue, floatPrecision, logScale, roundToBits, significantDigits, sqrtConjugateSign } from './sympy-numbers.ts';
import { SympyParseError } from '../cpython/py-tokenize.ts';

/** `rat`: exact rational; `flt`: sympy Float of `prec` bits; `exp`: any other exact value. */
export type ExactValue = { k: 'rat' | 'exp'; v: Num } | { k: 'flt'; v: BigNumber; prec: number };

// sympy computes factorial(n) exactly; far past this it would run for a long time.
const MAX_FACTORIAL = 10_000n;
const MAX_RISING = 1_000n;
const HALF = bignum('0.5');

const valueAt = (x: ExactValue, prec: number): Num => (x.k === 'exp' || !isBig(x.v) ? x.v : roundToBits(x.v, prec));

function applyOp(op: BinOp, a: Num, b: Num): Num {
  switch (op) {
    case '+':
      return BIG.add(a, b);
    case '-':
      return BIG.subtract(a, b);
    case '*':
      return BIG.multiply(a, b);
    case '/':
      return BIG.divide(a, b);
    case '**':
      return BIG.pow(a, b);
    case '//':
      if (isComplex(a) || isComplex(b)) throw new SympyParseError('floor of complex');
      return BIG.floor(BIG.divide(a, b));
  }
}

// sympy frac: x - floor(x) on each of the real and imaginary parts.
function fracPart(v: Num): Num {
  if (isComplex(v)) return BIG.complex(v.re - Math.floor(v.re), v.im - Math.floor(v.im));
  return BIG.subtract(v, BIG.floor(v));
}

const FUNCTIONS: Record<string, (v: Num) => Num> = { sqrt: BIG.sqrt, ln: BIG.log, csc: BIG.csc, re: BIG.re, im: BIG.im, frac: fracPart };

/** Exact-mode arithmetic in variant 0 (true values) or a conjugate variant (see sympy-numbers.ts). */
export class ExactArith implements Arith<ExactValue> {
  /** Largest finite intermediate magnitude seen. */
  maxMagnitude: BigNumber = bignum(1);
  /** Largest Float precision seen (0: no Float at all). */
  floatPrecision = 0;
  /** Whether a value that conjugate variants change (pi, e, i, a radical, a log) was used. */
  usesAtoms = false;
  private readonly variant: number;

  constructor(variant = 0) {
    this.variant = variant;
  }

  private note(x: ExactValue): ExactValue {
    const m = magnitude(x.v);
    if (m.isFinite() && m.gt(this.maxMagnitude)) this.maxMagnitude = m;
    return x;
  }

  // A real result at precision `prec` is a Float; a complex one is Float*I, no longer a Number.
  private toFloat(v: Num, prec: number): ExactValue {
    return this.note(isBig(v) ? { k: 'flt', v: roundToBits(v, prec), prec } : { k: 'exp', v });
  }

  private exact(v: Num): ExactValue {
    const r = isBig(v) ? asRational(v) : null;
    return this.note(r === null ? { k: 'exp', v } : { k: 'rat', v: r });
  }

  // A square root (or odd power of one) of a positive rational: signed per conjugate variant.
  private radical(base: ExactValue, exponent: BigNumber, v: Num): Num {
    const halfInteger = exponent.times(2).isInteger() && !exponent.isInteger();
    if (base.k !== 'rat' || !halfInteger || !isBig(base.v) || !base.v.isPositive()) return v;
    this.usesAtoms = true;
    return sqrtConjugateSign(base.v, this.variant) < 0 ? BIG.unaryMinus(v) : v;
  }

  integer(digits: string): ExactValue {
    return this.note({ k: 'rat', v: bignum(digits) });
  }

  float(literal: string): ExactValue {
    const text = literal.replaceAll('_', '');
    const prec = floatPrecision(significantDigits(text));
    this.floatPrecision = Math.max(this.floatPrecision, prec);
    return this.toFloat(bignum(text), prec);
  }

  symbol(): ExactValue {
    throw new SympyParseError('symbol in exact mode');
  }

  constant(name: string): ExactValue {
    if (name === 'pi' || name === 'E' || name === 'I') this.usesAtoms = true;
    if (name === 'pi' || name === 'E') return { k: 'exp', v: constantValue(name, this.variant) };
    if (name === 'I') return { k: 'exp', v: BIG.complex(0, this.variant === 0 ? 1 : -1) };
    if (name === 'oo' || name === 'zoo') return { k: 'exp', v: bignum(Infinity) };
    if (name === 'nan') return { k: 'exp', v: bignum(NaN) };
    throw new SympyParseError(`${name} is not a number`);
  }

  asInteger(a: ExactValue): bigint | null {
    if (a.k !== 'rat' || !isBig(a.v) || !a.v.isInteger()) return null;
    return BigInt(a.v.toFixed());
  }

  neg(a: ExactValue): ExactValue {
    return a.k === 'flt' ? { k: 'flt', v: a.v.neg(), prec: a.prec } : { k: a.k, v: BIG.unaryMinus(a.v) };
  }

  binary(op: BinOp, a: ExactValue, b: ExactValue): ExactValue {
    // Float op Number: operands and result at the larger Float precision.
    if (a.k !== 'exp' && b.k !== 'exp' && (a.k === 'flt' || b.k === 'flt')) {
      const prec = Math.max(a.k === 'flt' ? a.prec : 0, b.k === 'flt' ? b.prec : 0);
      // Rational.__truediv__(Float) is self*(1/other): rounded twice.
      if (op === '/' && a.k === 'rat') return this.binary('*', a, this.toFloat(BIG.divide(bignum(1), valueAt(b, prec)), prec));
      return this.toFloat(applyOp(op, valueAt(a, prec), valueAt(b, prec)), prec);
    }
    const v = applyOp(op, a.v, b.v);
    return this.exact(op === '**' && b.k === 'rat' && isBig(b.v) ? this.radical(a, b.v, v) : v);
  }

  call(name: string, args: ExactValue[]): ExactValue {
    const [x, k] = args;
    const binary = name === 'ff' || name === 'rf';
    if (x === undefined || args.length !== (binary ? 2 : 1)) throw new SympyParseError(`${name} arity`);
    if (name === 'factorial' || name === 'factorial2') return this.factorial(name, x);
    if (binary) return this.rising(name, x, k as ExactValue);
    const fn = FUNCTIONS[name];
    if (fn === undefined) throw new SympyParseError(`unsupported function ${name}`);
    // sympy evaluates a function of a Float numerically, at the Float's precision.
    if (x.k === 'flt') return this.toFloat(fn(x.v), x.prec);
    let v = fn(x.v);
    if (name === 'sqrt') v = this.radical(x, HALF, v);
    const positiveRational = x.k === 'rat' && isBig(x.v) && x.v.isPositive();
    if (name === 'ln' && positiveRational && isBig(v)) {
      this.usesAtoms = true;
      if (this.variant !== 0) v = v.times(logScale(this.variant));
    }
    return this.exact(v);
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

/**
 * Whether an exact-mode difference is zero as sympy's `simplify(diff) == 0` finds.
 * A Float Number result is zero only if its rounded arithmetic cancelled exactly.
 * Other results are exact, up to 64-digit error; once Floats took part they may
 * differ from sympy's by the rounding of Float coefficients, so they are compared
 * at Float precision (the caller also checks the conjugate variant).
 */
export function isExactZero(d: ExactValue, arith: ExactArith): boolean {
  if (!isFiniteNum(d.v)) return false;
  if (d.k === 'flt') return d.v.isZero();
  const bits = arith.floatPrecision === 0 ? 0 : arith.floatPrecision - 4;
  // mathjs keeps complex values as doubles: compare at double precision.
  const tol = isComplex(d.v) ? bignum('1e-12') : bits > 0 ? bignum(2).pow(-bits) : bignum('1e-40');
  return magnitude(d.v).lte(arith.maxMagnitude.times(tol));
}
