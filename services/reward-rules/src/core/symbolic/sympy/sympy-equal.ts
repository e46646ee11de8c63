// mathruler `are_equal_under_sympy` / `should_allow_eval` / `_sympy_parse`.
// sympy's parse_expr is ported token by token; `simplify(diff) == 0` is
// decided numerically with mathjs instead of by a CAS (see sympy-exact.ts and
// sympy-sample.ts for how each case follows sympy).
import { pyReplace } from '../../py/str.ts';
import { pyStrip } from '../../py/whitespace.ts';
import { parsePyExpr, type PyAst } from '../cpython/py-parse.ts';
import { pyTokenize } from '../cpython/py-tokenize.ts';
import { evaluate, hasSymbols } from './sympy-eval.ts';
import { ExactArith, isExactZero } from './sympy-exact.ts';
import { CONJUGATES } from './sympy-numbers.ts';
import { implicitMultiplicationApplication } from './sympy-implicit.ts';
import { SAMPLE_POINTS, SampleArith, sampleIsZero } from './sympy-sample.ts';
import { autoNumber, autoSymbol, factorialNotation, repeatedDecimals } from './sympy-transform.ts';

// "sympy might hang -- we don't care about trying to be lenient in these cases"
const BAD_SUBSTRINGS = ['^{', '^('];
const BAD_REGEXES = [/\^[0-9]+\^/, /\^[0-9][0-9]+/];
// Not in mathruler: sympy has no size limit, but past this an answer is no answer.
const MAX_EXPR_LENGTH = 2000;
const LETTER = /^\p{L}$/u;

/** mathruler `count_unknown_letters_in_expr`: distinct letters outside "sqrt" and "frac". */
export function countUnknownLetters(expr: string): number {
  const rest = pyReplace(pyReplace(expr, 'sqrt', ''), 'frac', '');
  const letters = new Set<string>();
  for (const ch of rest) if (LETTER.test(ch)) letters.add(ch);
  return letters.size;
}

/** mathruler `should_allow_eval`: at most two unknown letters, no exponent sympy could choke on. */
export function shouldAllowEval(expr: string): boolean {
  if (countUnknownLetters(expr) > 2) return false;
  if (BAD_SUBSTRINGS.some((s) => expr.includes(s))) return false;
  return !BAD_REGEXES.some((re) => re.test(expr));
}

/** mathruler `_sympy_parse`: parse_expr with standard + implicit_multiplication_application. */
export function sympyParse(expr: string): PyAst {
  let tokens = pyTokenize(pyStrip(pyReplace(expr, '^', '**')));
  for (const step of [autoSymbol, repeatedDecimals, autoNumber, factorialNotation, implicitMultiplicationApplication]) {
    tokens = step(tokens);
  }
  return parsePyExpr(tokens);
}

function symbolNames(ast: PyAst, out: Set<string>): Set<string> {
  if (ast.k === 'call') {
    const first = ast.args[0];
    if (ast.f.k === 'name' && ast.f.v === 'Symbol' && first?.k === 'str') out.add(first.v);
    ast.args.forEach((a) => symbolNames(a, out));
  } else if (ast.k === 'bin') {
    symbolNames(ast.l, out);
    symbolNames(ast.r, out);
  } else if (ast.k === 'unary') {
    symbolNames(ast.e, out);
  }
  return out;
}

function isZero(ast: PyAst): boolean {
  if (!hasSymbols(ast)) {
    const arith = new ExactArith();
    const d = evaluate(ast, arith);
    if (!isExactZero(d, arith)) return false;
    if (d.k === 'flt' || arith.floatPrecision === 0 || !arith.usesAtoms) return true;
    // With Floats the tolerance is loose: the conjugate values must cancel too.
    for (let variant = 1; variant <= CONJUGATES; variant++) {
      const conjugate = new ExactArith(variant);
      if (!isExactZero(evaluate(ast, conjugate), conjugate)) return false;
    }
    return true;
  }
  const names = [...symbolNames(ast, new Set())].sort();
  let finitePoints = 0;
  for (let p = 0; p < SAMPLE_POINTS; p++) {
    const arith = new SampleArith(p, names);
    const zero = sampleIsZero(evaluate(ast, arith), arith.maxMagnitude);
    if (zero === false) return false;
    if (zero === true) finitePoints++;
  }
  // A removable singularity may hit a point, but most points must be usable.
  return finitePoints >= SAMPLE_POINTS - 2;
}

/** mathruler `are_equal_under_sympy`: any exception means "not equal". */
export function areEqualUnderSympy(groundTruthNormalized: string, givenNormalized: string): boolean {
  const expr = `(${groundTruthNormalized})-(${givenNormalized})`;
  if (expr.length > MAX_EXPR_LENGTH || !shouldAllowEval(expr)) return false;
  try {
    return isZero(sympyParse(expr));
  } catch {
    return false;
  }
}
