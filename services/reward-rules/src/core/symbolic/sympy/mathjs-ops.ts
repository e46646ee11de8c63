// The two mathjs instances the sympy emulation computes with, behind a small
// untyped facade (mathjs' overloads do not type BigNumber | Complex unions).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { BigNumber, Complex, FactoryFunctionMap, create as mathjsCreate } from 'mathjs';

// Not `import { all, create } from 'mathjs'`: the package entry also builds mathjs'
// complete default instance (every function, typed and ready) as it is imported,
// ~35 MB of heap in every scoring worker that nothing here uses. `all` is exactly
// the namespace of lib/esm/factoriesAny.js (see lib/esm/entry/allFactoriesAny.js)
// and `create()` builds only the functions asked for. The package's `exports` map
// hides both files, so they are imported by path, next to its package.json.
const mathjsFile = (path: string) => new URL(path, pathToFileURL(createRequire(import.meta.url).resolve('mathjs/package.json'))).href;
const { create } = (await import(mathjsFile('lib/esm/core/create.js'))) as { create: typeof mathjsCreate };
const all = (await import(mathjsFile('lib/esm/factoriesAny.js'))) as FactoryFunctionMap;

/** A mathjs number: BigNumber (exact mode), number (double), or Complex. */
export type Num = BigNumber | Complex | number;

type Unary = (a: Num) => Num;
type Binary = (a: Num, b: Num) => Num;

/** The operations used, bound to one mathjs instance. */
export interface Ops {
  add: Binary;
  subtract: Binary;
  multiply: Binary;
  divide: Binary;
  pow: Binary;
  unaryMinus: Unary;
  sqrt: Unary;
  log: Unary;
  csc: Unary;
  re: Unary;
  im: Unary;
  floor: Unary;
  gamma: Unary;
  abs: Unary;
  complex(re: number, im: number): Complex;
}

function ops(m: ReturnType<typeof create>): Ops {
  const f = m as unknown as Record<string, (...args: Num[]) => Num>;
  const pick = <K extends keyof Ops>(name: K): Ops[K] => (f[name] as (...args: Num[]) => Num).bind(m) as Ops[K];
  return {
    add: pick('add'),
    subtract: pick('subtract'),
    multiply: pick('multiply'),
    divide: pick('divide'),
    pow: pick('pow'),
    unaryMinus: pick('unaryMinus'),
    sqrt: pick('sqrt'),
    log: pick('log'),
    csc: pick('csc'),
    re: pick('re'),
    im: pick('im'),
    floor: pick('floor'),
    gamma: pick('gamma'),
    abs: pick('abs'),
    complex: (re, im) => m.complex(re, im),
  };
}

const bigMath = create(all, { number: 'BigNumber', precision: 64 });
const dblMath = create(all);

/** 64-digit BigNumber arithmetic (Complex values fall back to doubles inside mathjs). */
export const BIG: Ops = ops(bigMath);
/** Double arithmetic, complex-capable. */
export const DBL: Ops = ops(dblMath);

/** A BigNumber from a decimal string or a number. */
export function bignum(x: string | number): BigNumber {
  return bigMath.bignumber(x);
}

/** pi at 64 digits. */
export const BIG_PI = bigMath.pi as unknown as BigNumber;
/** e at 64 digits. */
export const BIG_E = bigMath.e as unknown as BigNumber;

/** Whether x is a mathjs Complex. */
export const isComplex = (x: unknown): x is Complex => bigMath.isComplex(x);
/** Whether x is a mathjs BigNumber. */
export const isBig = (x: unknown): x is BigNumber => bigMath.isBigNumber(x);

/** |x| as a BigNumber (Complex moduli are doubles). */
export function magnitude(x: Num): BigNumber {
  if (isComplex(x)) return bignum(DBL.abs(x) as number);
  return isBig(x) ? x.abs() : bignum(Math.abs(x));
}

/** Whether every component of x is finite. */
export function isFiniteNum(x: Num): boolean {
  if (isComplex(x)) return Number.isFinite(x.re) && Number.isFinite(x.im);
  return isBig(x) ? x.isFinite() : Number.isFinite(x);
}
