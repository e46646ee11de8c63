// Python `str` methods whose JS look-alikes differ.

// `str.isdigit()` is true for Numeric_Type Decimal (= \p{Nd}) or Digit. JS has
// no property for the latter, so these Digit-type code points (superscripts,
// circled digits, ...) are listed as CPython 3.11 reports them.
const DIGIT_EXTRAS =
  '\\u00b2\\u00b3\\u00b9\\u1369-\\u1371\\u19da\\u2070\\u2074-\\u2079\\u2080-\\u2089\\u2460-\\u2468' +
  '\\u2474-\\u247c\\u2488-\\u2490\\u24ea\\u24f5-\\u24fd\\u24ff\\u2776-\\u277e\\u2780-\\u2788' +
  '\\u278a-\\u2792\\u{10a40}-\\u{10a43}\\u{10e60}-\\u{10e68}\\u{11052}-\\u{1105a}\\u{1f100}-\\u{1f10a}';
const ALL_DIGITS = new RegExp(`^[\\p{Nd}${DIGIT_EXTRAS}]+$`, 'u');

/** Python `s.isdigit()`: non-empty and every code point a decimal or digit character. */
export function pyIsDigit(s: string): boolean {
  return ALL_DIGITS.test(s);
}

/** Python `s.replace(old, new)` for a non-empty `old`; never interprets `$` patterns in `new`. */
export function pyReplace(s: string, old: string, replacement: string): string {
  return s.includes(old) ? s.split(old).join(replacement) : s;
}

/** Python `s.count(sub)` for a non-empty `sub`: non-overlapping occurrences. */
export function pyCount(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

const CANONICAL_INT = /^(?:0|-?[1-9][0-9]*)$/;
// CPython >= 3.11 (and 3.10.7+) refuses int(str) above 4300 digits (sys.get_int_max_str_digits()).
const PY_INT_MAX_STR_DIGITS = 4300;

/**
 * Whether `str(int(s)) == s` holds in Python without raising: `int()` accepts
 * more (spaces, `+`, `_`, Unicode digits, leading zeros) but only the canonical
 * form prints back identically.
 */
export function pyIntRoundTrips(s: string): boolean {
  if (!CANONICAL_INT.test(s)) return false;
  const digits = s.charCodeAt(0) === 0x2d ? s.length - 1 : s.length;
  return digits <= PY_INT_MAX_STR_DIGITS;
}
