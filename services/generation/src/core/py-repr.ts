// Python's str()/repr() of JSON values, for tool texts that verl builds with
// f-strings (e.g. Gsm8kTool.execute: f"Current parsed {answer=} {reward=}").

// Python's str.isprintable() is false for these categories (space excepted).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function escapeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** `repr(s)` of a Python str: single quotes unless only double quotes avoid escaping. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) out += escapeChar(ch);
    else out += ch;
  }
  return quote + out + quote;
}

/** `repr(x)` of a Python float: shortest round-trip digits, exponent form outside 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa = '0', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const fixed = String(x);
  return Number.isInteger(x) ? `${fixed}.0` : fixed;
}

/**
 * `str(v)` of a value decoded from JSON. JSON numbers lose Python's int/float
 * distinction in JavaScript; integral numbers print as ints (what a model
 * writing `{"answer": 18}` meant).
 */
export function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  return pyRepr(v);
}

/** `repr(v)` of a value decoded from JSON (str, int/float, bool, None, list, dict). */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v).toString() : pyFloatRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  }
  return String(v);
}
