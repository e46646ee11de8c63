// Python `float(str)`, `round(x)` and `int(x)` as mathruler's number checks use them.
import { pyStrip } from '../../py/whitespace.ts';

// float() grammar: underscores only between digits; inf/infinity/nan in any case.
// Non-ASCII decimal digits, which CPython also accepts, are refused here.
const DIGITS = '[0-9](?:_?[0-9])*';
const FLOAT = new RegExp(`^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`, 'i');

/** Python `float(s)`, or null where it raises ValueError. */
export function pyFloat(s: string): number | null {
  const t = pyStrip(s);
  if (!FLOAT.test(t)) return null;
  const body = t.replaceAll('_', '').toLowerCase();
  const sign = body.startsWith('-') ? -1 : 1;
  const unsigned = body.replace(/^[+-]/, '');
  if (unsigned === 'nan') return Number.NaN;
  if (unsigned === 'inf' || unsigned === 'infinity') return sign * Number.POSITIVE_INFINITY;
  // JS and CPython both round decimal strings correctly to the nearest double.
  return Number(body);
}

/** Python `round(x)` on a float: half to even; null where it raises (inf, nan). */
export function pyRound(x: number): number | null {
  if (!Number.isFinite(x)) return null;
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** mathruler `_is_int`: within 1e-7 of `int(round(x))`; False where that raises. */
export function isNearInt(x: number): boolean {
  const r = pyRound(x);
  return r !== null && Math.abs(x - r) <= 1e-7;
}

/** Python `str(int(x))` for a finite float (truncates toward zero). */
export function intString(x: number): string {
  return BigInt(Math.trunc(x)).toString();
}
