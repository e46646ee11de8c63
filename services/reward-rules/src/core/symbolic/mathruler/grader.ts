// mathruler.grader `grade_answer` and `extract_boxed_content` (PRM800K grader).
import { pyStrip } from '../../py/whitespace.ts';
import { normalizeAnswer } from './math-normalize.ts';
import { normalizeExpr, strIsInt, stripProperlyFormattedCommas } from './normalize.ts';
import { areEqualUnderSympy } from '../sympy/sympy-equal.ts';

const TUPLE_CHARS = '()[]';
// `^-?[0-9]+.?/0*[1-9][0-9]*.?$`: `.` is any code point but "\n"; `$` allows one final "\n".
const FRAC = /^-?[0-9]+[^\n]?\/0*[1-9][0-9]*[^\n]?(?=\n?$)/u;

/** mathruler `_is_frac`: looks like "a/b" (so unreduced fractions must match literally). */
export function isFrac(expr: string): boolean {
  return FRAC.test(expr);
}

/** mathruler `split_tuple`: elements of "(a,b)" / "[a,b)" / ..., else the whole string. */
export function splitTuple(input: string): string[] {
  const expr = stripProperlyFormattedCommas(input);
  if (expr.length === 0) return [];
  const inner = expr.slice(1, -1);
  if (
    [...expr].length > 2 &&
    TUPLE_CHARS.includes(expr[0] as string) &&
    TUPLE_CHARS.includes(expr[expr.length - 1] as string) &&
    ![...TUPLE_CHARS].some((ch) => inner.includes(ch))
  ) {
    return inner.split(',').map(pyStrip);
  }
  return [expr];
}

const firstCp = (s: string): string => String.fromCodePoint(s.codePointAt(0) as number);
const lastCp = (s: string): string => [...s].pop() as string;

function elementsEqual(truth: string, given: string): boolean {
  // Unreduced fractions must match exactly: no sympy for "a/b" against "c/d".
  if (isFrac(truth) && isFrac(given)) return truth === given;
  // An integer truth requires an integer-looking answer (and the other way round).
  if (strIsInt(truth) !== strIsInt(given)) return false;
  return areEqualUnderSympy(truth, given);
}

/**
 * mathruler `grade_answer`: equal after MATH normalisation, or after mathruler's
 * own normalisation, or elementwise under sympy. `truth` null is Python None.
 */
export function gradeAnswer(given: string, truth: string | null): boolean {
  if (normalizeAnswer(truth) === normalizeAnswer(given)) return true;
  const truthNorm = normalizeExpr(truth);
  const givenNorm = normalizeExpr(given) as string;
  if (truthNorm === null) return false;
  if (truthNorm === givenNorm) return true;
  if (givenNorm.length === 0) return false;
  const truthElems = splitTuple(truthNorm);
  const givenElems = splitTuple(givenNorm);
  if (truthElems.length > 1 && (firstCp(truthNorm) !== firstCp(givenNorm) || lastCp(truthNorm) !== lastCp(givenNorm))) {
    return false;
  }
  if (truthElems.length !== givenElems.length) return false;
  return truthElems.every((t, i) => elementsEqual(t, givenElems[i] as string));
}

const BOX = '\\boxed{';

/** mathruler `extract_boxed_content`: the last `\boxed{...}`, stripped; "None" when absent or unclosed. */
export function extractBoxedContent(text: string): string {
  const start = text.lastIndexOf(BOX);
  if (start === -1) return 'None';
  const content = text.slice(start + BOX.length);
  let depth = 0;
  for (let i = 0; i < content.length; i++) {
    const ch = content[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    if (depth === -1) return pyStrip(content.slice(0, i));
  }
  return 'None';
}
