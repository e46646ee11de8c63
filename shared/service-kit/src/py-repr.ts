// Python's `str()` and `repr()` of JSON values, the one port for every service:
// - reward-sandbox: verl's sandbox_fusion `_process_single_case` sends
//   `str(stdin_data)` as stdin and compares against `str(expected_output)`, so a
//   non-string input/output reaches the program as its Python rendering
//   (`[1, 2]`, `{'a': None}`, `True`, `1.0`);
// - generation: tool texts that verl builds with f-strings
//   (Gsm8kTool.execute: f"Current parsed {answer=} {reward=}").

/** A JSON number with the Python text it would print as (kept from the JSON source). */
export class PyNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

// Python str.isprintable() is false for these categories (space excepted).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

/** Python `repr(str)`: quote choice and escapes of CPython's unicode_repr. */
export function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || ch === ' ' || !NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

/** Python `repr(float)`: shortest round-trip digits, exponent form when decpt <= -4 or > 16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa = '', exp = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exp) + 1;
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const frac = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${frac}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** Python text of a JSON number: its source when an int literal (exact big ints), else float repr. */
export function pyNumberText(value: number, source: string | undefined): string {
  if (source !== undefined) return /^-?\d+$/.test(source) ? BigInt(source).toString() : pyFloatRepr(value);
  // Already-parsed JSON: an integral value was (almost always) an int literal.
  return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
}

/** JSON.parse keeping each number's Python text (`1.0` stays a float, big ints stay exact). */
export function parseJsonForPython(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
    typeof value === 'number' ? new PyNumber(pyNumberText(value, context?.source)) : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** Python `repr()` of a JSON value; throws TypeError for anything JSON cannot hold. */
export function pyRepr(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pyStringRepr(value);
  if (typeof value === 'number') return pyNumberText(value, undefined);
  if (value instanceof PyNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const items = Object.entries(value).map(([k, v]) => `${pyStringRepr(k)}: ${pyRepr(v)}`);
    return `{${items.join(', ')}}`;
  }
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

/** Python `str()` of a JSON value: strings as they are, everything else as `repr()`. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}
