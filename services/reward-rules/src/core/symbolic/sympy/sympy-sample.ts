// Arith for expressions with symbols: sympy symbols are complex, so the
// difference is evaluated (mathjs, complex doubles) at fixed complex points
// chosen off the real axis and across the branch cuts (sqrt(x*y) is not
// sqrt(x)*sqrt(y) for sympy); it counts as zero when it vanishes, relative to
// the largest intermediate value, at every point where it is finite.
import { DBL, isComplex, isFiniteNum, type Num } from './mathjs-ops.ts';
import type { Arith, BinOp } from './sympy-eval.ts';
import { SympyParseError } from '../cpython/py-tokenize.ts';

const BASE: ReadonlyArray<readonly [number, number]> = [
  [0.73, 0.41],
  [-1.37, 0.68],
  [0.52, -1.19],
  [-0.61, -0.93],
  [1.81, 0.27],
  [-0.29, 1.53],
  [1.12, -0.47],
  [-1.64, -0.35],
];
// BASE indices of the first two symbols at each point. Arguments (degrees) of the
// pairs: plain (29, 8), sum past -180 (-123, -168), sum past 180 (154, 101),
// difference past 180 (154, -123) and (101, -168), plain (-23, -66).
const PAIRS: ReadonlyArray<readonly [number, number]> = [
  [0, 4],
  [3, 7],
  [1, 5],
  [1, 3],
  [6, 2],
  [5, 7],
];
/** Number of sample points tried. */
export const SAMPLE_POINTS = PAIRS.length;
const MAX_FACTORIAL_ORDER = 1_000;

/** Complex-double arithmetic with symbols bound to the values of sample point `point`. */
export class SampleArith implements Arith<Num> {
  private readonly point: number;
  private readonly names = new Map<string, number>();
  maxMagnitude = 1;

  constructor(point: number, symbolOrder: readonly string[]) {
    this.point = point;
    symbolOrder.forEach((name, i) => this.names.set(name, i));
  }

  private note(v: Num): Num {
    const m = isComplex(v) ? (DBL.abs(v) as number) : Math.abs(v as number);
    if (Number.isFinite(m) && m > this.maxMagnitude) this.maxMagnitude = m;
    return v;
  }

  integer(digits: string): Num {
    return this.note(Number(digits));
  }

  float(literal: string): Num {
    return this.note(Number(literal.replaceAll('_', '')));
  }

  symbol(name: string): Num {
    const j = this.names.get(name) ?? 0;
    const pair = PAIRS[this.point] as readonly [number, number];
    const [re, im] = BASE[((pair[j % 2] as number) + 3 * Math.floor(j / 2)) % BASE.length] as readonly [number, number];
    // Further symbols get distinct, non-commensurate values.
    const scale = 1 + Math.floor(j / 2) / 7;
    return DBL.complex(re * scale, im * scale);
  }

  constant(name: string): Num {
    if (name === 'pi') return Math.PI;
    if (name === 'E') return Math.E;
    if (name === 'I') return DBL.complex(0, 1);
    if (name === 'oo' || name === 'zoo') return Infinity;
    if (name === 'nan') return NaN;
    throw new SympyParseError(`${name} is not a number`);
  }

  asInteger(a: Num): bigint | null {
    return typeof a === 'number' && Number.isSafeInteger(a) ? BigInt(a) : null;
  }

  neg(a: Num): Num {
    return DBL.unaryMinus(a);
  }

  binary(op: BinOp, a: Num, b: Num): Num {
    switch (op) {
      case '+':
        return this.note(DBL.add(a, b));
      case '-':
        return this.note(DBL.subtract(a, b));
      case '*':
        return this.note(DBL.multiply(a, b));
      case '/':
        return this.note(DBL.divide(a, b));
      case '**':
        return this.note(DBL.pow(a, b));
      case '//':
        throw new SympyParseError('floor division of a symbolic value');
    }
  }

  call(name: string, args: Num[]): Num {
    const [x, k] = args;
    if (x === undefined) throw new SympyParseError(`${name} arity`);
    if (args.length === 1) {
      if (name === 'sqrt') return this.note(DBL.sqrt(x));
      if (name === 'ln') return this.note(DBL.log(x));
      if (name === 'csc') return this.note(DBL.csc(x));
      if (name === 're') return this.note(DBL.re(x));
      if (name === 'im') return this.note(DBL.im(x));
      // factorial(z) = gamma(z + 1) for the complex z a symbol makes.
      if (name === 'factorial') return this.note(DBL.gamma(DBL.add(x, 1)));
    }
    if (args.length === 2 && (name === 'ff' || name === 'rf') && k !== undefined) {
      const n = this.asInteger(k);
      if (n === null || n < 0n || n > BigInt(MAX_FACTORIAL_ORDER)) throw new SympyParseError(`${name} order`);
      let acc: Num = 1;
      for (let i = 0; i < Number(n); i++) acc = DBL.multiply(acc, name === 'rf' ? DBL.add(x, i) : DBL.subtract(x, i));
      return this.note(acc);
    }
    throw new SympyParseError(`unsupported function ${name}`);
  }
}

/** Zero at this point: |d| small against the largest intermediate; null when not finite. */
export function sampleIsZero(d: Num, maxMagnitude: number): boolean | null {
  if (!isFiniteNum(d)) return null;
  const m = isComplex(d) ? (DBL.abs(d) as number) : Math.abs(d as number);
  return m <= 1e-10 * maxMagnitude;
}
