// mathruler grader `_normalize` and its helpers (`_parse_latex`, `_str_is_int`,
// `_strip_properly_formatted_commas`, `_inject_implicit_mixed_number`).
import { PY_DOT } from '../../py/regex.ts';
import { pyReplace } from '../../py/str.ts';
import { pyStrip } from '../../py/whitespace.ts';
import { latexToText } from '../pylatexenc/latex-to-text.ts';
import { intString, isNearInt, pyFloat, pyRound } from '../cpython/py-float.ts';

const TEXT_WRAPPED = new RegExp(`^\\\\text\\{(${PY_DOT}+?)\\}(?=\\n?$)`, 'u');
const UNITS = ['degree', 'cm', 'centimeter', 'meter', 'mile', 'second', 'minute', 'hour', 'day', 'week', 'month', 'year', 'foot', 'feet', 'inch', 'yard'].map(
  (u) => new RegExp(`${u}(es)?(s)? *(\\^[0-9]+)?`, 'g'),
);
// Python `\d` / `\D` on str are Unicode decimal digits.
const PROPER_COMMA = /(\p{Nd})(,)(\p{Nd}\p{Nd}\p{Nd})($|[^\p{Nd}])/gu;
const LATEX_TO_SYMPY: ReadonlyArray<readonly [string, string]> = [
  ['\u221a', 'sqrt'],
  ['\u03c0', 'pi'],
  ['\u221e', 'inf'],
  ['\u222a', 'U'],
  ['\u00b7', '*'],
  ['\u00d7', '*'],
];

/** mathruler `_strip_properly_formatted_commas`: "1,000" -> "1000", tuple commas kept. */
export function stripProperlyFormattedCommas(expr: string): string {
  let s = expr;
  for (;;) {
    const next = s.replace(PROPER_COMMA, '$1$3$4');
    if (next === s) return next;
    s = next;
  }
}

/** mathruler `_str_is_int`: the string parses as a float within 1e-7 of an integer. */
export function strIsInt(x: string): boolean {
  const v = pyFloat(stripProperlyFormattedCommas(x));
  return v !== null && isNearInt(v);
}

/** mathruler `_parse_latex`: latex -> text sympy can read; throws where pylatexenc raises. */
export function parseLatex(expr: string): string {
  let s = pyReplace(expr, '\\tfrac', '\\frac');
  s = pyReplace(s, '\\dfrac', '\\frac');
  // "Play nice with mixed numbers": 7\frac{3}{4} -> 7 3/4.
  s = pyReplace(s, '\\frac', ' \\frac');
  s = latexToText(s);
  for (const [from, to] of LATEX_TO_SYMPY) s = pyReplace(s, from, to);
  return pyStrip(s);
}

// Python `str.lower()` uses full case mappings and the Final_Sigma rule ('AΣ' -> 'aς'),
// exactly as String.prototype.toLowerCase does.
function pyLower(s: string): string {
  return s.toLowerCase();
}

/** mathruler grader `_normalize` (null stands for Python None). */
export function normalizeExpr(input: string | null): string | null {
  if (input === null) return null;
  let expr = input;
  const m = TEXT_WRAPPED.exec(expr);
  if (m !== null) expr = m[1] as string;
  expr = pyReplace(expr, '\\%', '%');
  expr = pyReplace(expr, '\\$', '$');
  expr = pyReplace(expr, '$', '');
  expr = pyReplace(expr, '%', '');
  expr = pyReplace(expr, ' or ', ' , ');
  expr = pyReplace(expr, ' and ', ' , ');
  expr = pyReplace(expr, 'million', '*10^6');
  expr = pyReplace(expr, 'billion', '*10^9');
  expr = pyReplace(expr, 'trillion', '*10^12');
  for (const unit of UNITS) expr = expr.replace(unit, '');
  expr = expr.replace(/\^ *\\circ/g, '');
  if (expr.startsWith('{') && expr.endsWith('}')) expr = expr.slice(1, -1);
  expr = expr.replace(/,\\! */g, '');
  const f = pyFloat(expr);
  if (f !== null && isNearInt(f)) expr = intString(pyRound(f) as number);
  if (expr.includes('\\')) {
    try {
      expr = parseLatex(expr);
    } catch {
      // mathruler: `except: pass` keeps the latex as it was.
    }
  }
  expr = expr.replace(/- */g, '-');
  expr = expr.replace(/([0-9]) +([0-9])/g, '$1+$2');
  expr = pyReplace(expr, ' ', '');
  expr = pyReplace(pyReplace(expr, '{', ''), '}', '');
  expr = pyLower(expr);
  if (strIsInt(expr)) {
    // _str_to_int drops every comma, then int(float(x)) truncates.
    expr = intString(pyFloat(pyReplace(expr, ',', '')) as number);
  }
  return expr;
}
