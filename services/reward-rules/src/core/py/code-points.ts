// Python `str` counts code points; JS strings count UTF-16 units. These helpers
// give Python's `len(s)`, `s[-n:]` and `s[start:]` on JS strings. A surrogate
// pair is one code point, a lone surrogate is one code point (as Python keeps
// it after `json.loads("\"\\ud800\"")`).

// Matches any surrogate unit (no `u` flag, so it sees units, not code points).
const SURROGATE = /[\ud800-\udfff]/;

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** UTF-16 width (1 or 2) of the code point starting at unit index `i`. */
export function codePointWidthAt(s: string, i: number): number {
  return isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
}

/** Python `len(s)`: the number of code points. */
export function pyLen(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}

/** Python `s[-n:]` for n >= 1: the last n code points, walking back from the end only. */
export function pyTail(s: string, n: number): string {
  // n code points never take fewer than n units.
  if (s.length <= n) return s;
  // Fast path: without surrogates in the last n units, they are exactly n code points.
  const units = s.slice(s.length - n);
  if (!SURROGATE.test(units)) return units;
  let i = s.length;
  for (let count = 0; count < n && i > 0; count++) {
    i--;
    if (i > 0 && isLow(s.charCodeAt(i)) && isHigh(s.charCodeAt(i - 1))) i--;
  }
  return s.slice(i);
}

/** Python `s[start:]` for any integer `start` (negative counts from the end, out of range clamps). */
export function pySliceFrom(s: string, start: number): string {
  if (start < 0) return pyTail(s, -start);
  let i = 0;
  for (let count = 0; count < start && i < s.length; count++) i += codePointWidthAt(s, i);
  return s.slice(i);
}
