// verl math_reward.strip_string and its fix_* helpers (Hendrycks MATH
// normalisation). Where verl raises inside strip_string (IndexError in
// fix_sqrt/fix_fracs, AssertionError in remove_right_units) these return null,
// and is_equiv falls back to comparing the raw strings.
import { codePointWidthAt, pyLen } from '../py/code-points.ts';
import { pyIntRoundTrips, pyReplace } from '../py/str.ts';

/** Marks "verl raised here": the caller takes verl's `except` path. */
export type Raised = null;

function fixFracs(s: string): string | Raised {
  const substrs = s.split('\\frac');
  let out = substrs[0] as string;
  for (let k = 1; k < substrs.length; k++) {
    const sub = substrs[k] as string;
    out += '\\frac';
    // verl `substr[0]` on "" (a trailing or doubled \frac) raises IndexError outside its try.
    if (sub.length === 0) return null;
    if (sub[0] === '{') {
      out += sub;
      continue;
    }
    // a = substr[0], b = substr[1] are code points, not UTF-16 units.
    const wa = codePointWidthAt(sub, 0);
    // verl: `assert len(substr) >= 2` fails -> returns fix_fracs' input unchanged.
    if (sub.length <= wa) return s;
    const wb = codePointWidthAt(sub, wa);
    const a = sub.slice(0, wa);
    const b = sub.slice(wa, wa + wb);
    const post = sub.slice(wa + wb);
    out += b !== '{' ? `{${a}}{${b}}${post}` : `{${a}}${b}${post}`;
  }
  return out;
}

function fixASlashB(s: string): string {
  const parts = s.split('/');
  if (parts.length !== 2) return s;
  const a = parts[0] as string;
  const b = parts[1] as string;
  // verl: int(a), int(b), then assert string == f"{a}/{b}"; only canonical ints pass.
  return pyIntRoundTrips(a) && pyIntRoundTrips(b) ? `\\frac{${a}}{${b}}` : s;
}

function removeRightUnits(s: string): string | Raised {
  if (!s.includes('\\text{ ')) return s;
  const splits = s.split('\\text{ ');
  // verl: `assert len(splits) == 2` raises on two or more "\text{ ".
  return splits.length === 2 ? (splits[0] as string) : null;
}

function fixSqrt(s: string): string | Raised {
  if (!s.includes('\\sqrt')) return s;
  const splits = s.split('\\sqrt');
  let out = splits[0] as string;
  for (let k = 1; k < splits.length; k++) {
    const sp = splits[k] as string;
    // verl `split[0]` on "" (a trailing "\sqrt") raises IndexError.
    if (sp.length === 0) return null;
    if (sp[0] !== '{') {
      const w = codePointWidthAt(sp, 0);
      out += `\\sqrt{${sp.slice(0, w)}}${sp.slice(w)}`;
    } else {
      out += `\\sqrt${sp}`;
    }
  }
  return out;
}

/** verl `math_reward.strip_string`; null where verl raises. */
export function stripString(input: string): string | Raised {
  let s = pyReplace(input, '\n', '');
  s = pyReplace(s, '\\!', '');
  s = pyReplace(s, '\\\\', '\\');
  s = pyReplace(s, 'tfrac', 'frac');
  s = pyReplace(s, 'dfrac', 'frac');
  s = pyReplace(s, '\\left', '');
  s = pyReplace(s, '\\right', '');
  s = pyReplace(s, '^{\\circ}', '');
  s = pyReplace(s, '^\\circ', '');
  s = pyReplace(s, '\\$', '');
  const noUnits = removeRightUnits(s);
  if (noUnits === null) return null;
  s = pyReplace(noUnits, '\\\\%', '');
  s = pyReplace(s, '\\%', '');
  s = pyReplace(s, ' .', ' 0.');
  s = pyReplace(s, '{.', '{0.');
  if (s.length === 0) return s;
  if (s[0] === '.') s = `0${s}`;
  const eq = s.split('=');
  // `len(split[0]) <= 2` counts code points; 2 code points never exceed 4 units.
  if (eq.length === 2) {
    const lhs = eq[0] as string;
    if (lhs.length <= 4 && pyLen(lhs) <= 2) s = eq[1] as string;
  }
  const sqrtFixed = fixSqrt(s);
  if (sqrtFixed === null) return null;
  s = pyReplace(sqrtFixed, ' ', '');
  const fracFixed = fixFracs(s);
  if (fracFixed === null) return null;
  s = fracFixed === '0.5' ? '\\frac{1}{2}' : fracFixed;
  return fixASlashB(s);
}
