// Number helpers of the exact (symbol-free) evaluation: sympy Float precision,
// mpmath rounding, rational recognition, and the conjugate values used to tell
// a decimal that merely approximates sqrt(2) or pi from an exact multiple of it.
import type { BigNumber } from 'mathjs';
import { BIG, BIG_E, BIG_PI, bignum } from './mathjs-ops.ts';

const TWO = bignum(2);

/** Significant digits sympy's Float(str) counts (Decimal(str).as_tuple() digits). */
export function significantDigits(literal: string): number {
  const mantissa = literal.replace(/[eE].*$/, '').replace(/[-+.]/g, '');
  return mantissa.replace(/^0+/, '').length;
}

/** sympy Float(str) precision in bits: dps_to_prec(max(15, digits)). */
export function floatPrecision(digits: number): number {
  return digits > 15 ? Math.round((digits + 1) * 3.3219280948873626) : 53;
}

/** mpmath rounding (half even) of v to `bits` significant bits; 64-digit BigNumbers hold ~200. */
export function roundToBits(v: BigNumber, bits: number): BigNumber {
  const x = Math.abs(v.toNumber());
  if (bits > 200 || x === 0 || !Number.isFinite(x)) return v;
  let e = Math.floor(Math.log2(x));
  const scaled = v.abs().times(TWO.pow(bits - 1 - e));
  // log2 of the double may be off by one next to a power of two.
  if (scaled.gte(TWO.pow(bits))) e++;
  else if (scaled.lt(TWO.pow(bits - 1))) e--;
  const scale = TWO.pow(bits - 1 - e);
  return v.times(scale).toDecimalPlaces(0, 6).div(scale);
}

// sympy turns exact results such as pi/pi or sqrt(9) into Rationals; an exact value
// this close to a fraction with a small denominator is taken to be one.
const MAX_DENOMINATOR = 1_000_000;

/** The fraction p/q (q <= 10^6) within 1e-45 relative of v, or null. */
export function asRational(v: BigNumber): BigNumber | null {
  if (!v.isFinite()) return null;
  if (v.isInteger()) return v;
  const x = v.toNumber();
  if (Math.abs(x) > 1e9) return null;
  // Continued fraction in doubles to find the candidate, then one exact check.
  let [h0, h1, k0, k1] = [0, 1, 1, 0];
  let y = x;
  for (let i = 0; i < 40; i++) {
    const a = Math.floor(y);
    [h0, h1] = [h1, a * h1 + h0];
    [k0, k1] = [k1, a * k1 + k0];
    if (k1 > MAX_DENOMINATOR) return null;
    if (Math.abs(x - h1 / k1) <= 1e-13 * Math.max(1, Math.abs(x))) {
      const approx = bignum(h1).div(k1);
      const tol = (v.abs().gt(1) ? v.abs() : bignum(1)).times('1e-45');
      return approx.minus(v).abs().lte(tol) ? approx : null;
    }
    if (y === a) return null;
    y = 1 / (y - a);
  }
  return null;
}

// Conjugate evaluation: pi and e move to other transcendental values, logs of
// rationals scale, i -> -i, and sqrt(p) -> +-sqrt(p) per prime p (a field
// automorphism, so sqrt(8) = 2*sqrt(2) and sqrt(2)*sqrt(3) = sqrt(6) still hold).
// An exact identity survives every variant; a decimal that equals sqrt(6) to 16
// digits fails one whose signs flip sqrt(6), and pi's shift catches 3.14159...
/** Number of conjugate variants (1..CONJUGATES); variant 0 is the true value. */
export const CONJUGATES = 12;
// Variant v flips sqrt(p) when bit v-1 of this hash of p is set; the multiplier was
// chosen so that every squarefree number up to 20000 is flipped by some variant.
const HASH_MULTIPLIER = 1402418893n;

function flips(p: number, variant: number): boolean {
  const h = ((BigInt(p) * HASH_MULTIPLIER) % 4294967296n) >> 20n;
  return ((h >> BigInt(variant - 1)) & 1n) === 1n;
}

/** Value of a named constant in a variant. */
export function constantValue(name: 'pi' | 'E', variant: number): BigNumber {
  const v = name === 'pi' ? BIG_PI : BIG_E;
  return variant === 0 ? v : v.plus(bignum(variant).div(7));
}

/** Factor applied to ln(r) of a positive rational in a conjugate variant. */
export function logScale(variant: number): BigNumber {
  return bignum(1).plus(bignum(variant).times('0.1234567890123'));
}

const MAX_FACTOR = 1e10;

/** Sign of sigma_variant(r^(1/2)) / r^(1/2) for a positive rational r = a/b. */
export function sqrtConjugateSign(r: BigNumber, variant: number): number {
  if (variant === 0) return 1;
  const [a, b] = (BIG.abs(r) as BigNumber).toFraction(1e12).map(Number) as [number, number];
  let n = a * b;
  if (!Number.isSafeInteger(n) || n > MAX_FACTOR) return 1;
  let sign = 1;
  for (let p = 2; p * p <= n; p++) {
    let odd = false;
    while (n % p === 0) {
      n /= p;
      odd = !odd;
    }
    if (odd && flips(p, variant)) sign = -sign;
  }
  return n > 1 && flips(n, variant) ? -sign : sign;
}
