// mathruler math_normalize.normalize_answer (PRM800K's copy of the Hendrycks
// MATH `_strip_string`). Unlike verl's math_reward copy it drops every "%".
import { pyLen } from '../../py/code-points.ts';
import { pyIntRoundTrips, pyReplace } from '../../py/str.ts';
import { pyStrip } from '../../py/whitespace.ts';
import { PY_DOT } from '../../py/regex.ts';

/** A Python exception inside _strip_string: normalize_answer's `except` returns its input. */
class Raised extends Error {}

// `^\\text\{(?P<text>.+?)\}$`: Python `$` also matches before a final "\n".
const TEXT_WRAPPED = new RegExp(`^\\\\text\\{(${PY_DOT}+?)\\}(?=\\n?$)`, 'u');

function fixFracs(s: string): string {
  const substrs = s.split('\\frac');
  let out = substrs[0] as string;
  for (const sub of substrs.slice(1)) {
    out += '\\frac';
    // `substr[0]` on "" raises IndexError.
    if (sub.length === 0) throw new Raised('IndexError');
    const cps = [...sub];
    if (cps[0] === '{') {
      out += sub;
      continue;
    }
    // `assert len(substr) >= 2` fails -> _fix_fracs returns its input.
    if (cps.length < 2) return s;
    const a = cps[0] as string;
    const b = cps[1] as string;
    const post = cps.slice(2).join('');
    out += b !== '{' ? `{${a}}{${b}}${post}` : `{${a}}${b}${post}`;
  }
  return out;
}

function fixASlashB(s: string): string {
  const parts = s.split('/');
  if (parts.length !== 2) return s;
  const [a, b] = parts as [string, string];
  // int(a), int(b) then `assert string == f"{a}/{b}"`: only canonical ints pass.
  return pyIntRoundTrips(a) && pyIntRoundTrips(b) ? `\\frac{${a}}{${b}}` : s;
}

function removeRightUnits(s: string): string {
  if (!s.includes('\\text{ ')) return s;
  const splits = s.split('\\text{ ');
  if (splits.length !== 2) throw new Raised('AssertionError');
  return splits[0] as string;
}

function fixSqrt(s: string): string {
  if (!s.includes('\\sqrt')) return s;
  const splits = s.split('\\sqrt');
  let out = splits[0] as string;
  for (const split of splits.slice(1)) {
    if (split.length === 0) throw new Raised('IndexError');
    const cps = [...split];
    out += cps[0] !== '{' ? `\\sqrt{${cps[0]}}${cps.slice(1).join('')}` : `\\sqrt${split}`;
  }
  return out;
}

function stripString(input: string): string {
  let s = pyReplace(input, '\n', '');
  for (const [from, to] of [
    ['\\!', ''],
    ['\\\\', '\\'],
    ['tfrac', 'frac'],
    ['dfrac', 'frac'],
    ['\\left', ''],
    ['\\right', ''],
    ['^{\\circ}', ''],
    ['^\\circ', ''],
    ['\\$', ''],
  ] as const) {
    s = pyReplace(s, from, to);
  }
  s = removeRightUnits(s);
  s = pyReplace(pyReplace(s, '\\%', ''), '%', '');
  s = pyReplace(pyReplace(s, ' .', ' 0.'), '{.', '{0.');
  if (s.length === 0) return s;
  if (s.startsWith('.')) s = `0${s}`;
  const eq = s.split('=');
  if (eq.length === 2 && pyLen(eq[0] as string) <= 2) s = eq[1] as string;
  s = pyReplace(fixSqrt(s), ' ', '');
  s = fixFracs(s);
  if (s === '0.5') s = '\\frac{1}{2}';
  return fixASlashB(s);
}

/** mathruler `normalize_answer` (null stands for Python None). */
export function normalizeAnswer(answer: string | null): string | null {
  if (answer === null) return null;
  let a = pyStrip(answer);
  const m = TEXT_WRAPPED.exec(a);
  if (m !== null) a = pyStrip(m[1] as string);
  try {
    return stripString(a);
  } catch (e) {
    if (e instanceof Raised) return a;
    throw e;
  }
}
