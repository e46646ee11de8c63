// sympy.parsing.sympy_parser standard_transformations (sympy 1.14) on token
// lists: auto_symbol, repeated_decimals, auto_number, factorial_notation.
// lambda_notation is left out: mathruler's input always starts with "(".
import { inGlobals } from './sympy-names.ts';
import { SympyParseError, type Tok } from '../cpython/py-tokenize.ts';

const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally ' +
    'for from global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);

const name = (v: string): Tok => ({ t: 'NAME', v });
const op = (v: string): Tok => ({ t: 'OP', v });
const num = (v: string): Tok => ({ t: 'NUMBER', v });

/** auto_symbol: unknown names become Symbol('x') (or Function('f') before "("). */
export function autoSymbol(tokens: readonly Tok[]): Tok[] {
  const out: Tok[] = [];
  let prev: Tok = { t: 'ENDMARKER', v: '' };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as Tok;
    const next = tokens[i + 1];
    if (tok.t === 'NAME') {
      // These `continue` without updating prevTok, as sympy's loop does.
      if (
        KEYWORDS.has(tok.v) ||
        (prev.t === 'OP' && prev.v === '.') ||
        (prev.t === 'OP' && (prev.v === '(' || prev.v === ',') && next?.t === 'OP' && next.v === '=') ||
        inGlobals(tok.v)
      ) {
        out.push(tok);
        continue;
      }
      // The symbol's name travels as a string literal token, like repr(str(name)).
      out.push(name(next?.v === '(' ? 'Function' : 'Symbol'), op('('), name(`'${tok.v}'`), op(')'));
    } else {
      out.push(tok);
    }
    prev = tok;
  }
  return out;
}

const isDigits = (s: string): boolean => /^[0-9_]*$/.test(s);

/** repeated_decimals: 0.2[1] -> the exact rational 19/90. */
export function repeatedDecimals(tokens: readonly Tok[]): Tok[] {
  let out: Tok[] = [];
  let run: Tok[] = [];
  for (const tok of tokens) {
    if (tok.t === 'NUMBER') {
      const low = tok.v.toLowerCase();
      if (run.length === 0 && tok.v.includes('.') && !low.includes('e') && !low.includes('j')) run.push(tok);
      else if (isDigits(tok.v) && (run.length === 2 || (run.length === 3 && isDigits((run[2] as Tok).v)))) run.push(tok);
      else run = [];
    } else if (tok.t === 'OP') {
      if (tok.v === '[' && run.length === 1) run.push(tok);
      else if (tok.v === ']' && run.length >= 3) run.push(tok);
      else if (tok.v === '.' && run.length === 0) run.push(num('0.'));
      else run = [];
    } else {
      run = [];
    }
    out.push(tok);
    if (run.length > 0 && (run[run.length - 1] as Tok).v === ']') {
      out = out.slice(0, out.length - run.length);
      const [pre0, post0] = (run[0] as Tok).v.split('.') as [string, string];
      let repetend = (run[2] as Tok).v;
      if (run.length === 5) repetend += (run[3] as Tok).v;
      const pre = pre0.replaceAll('_', '');
      const post = post0.replaceAll('_', '');
      repetend = repetend.replaceAll('_', '');
      const zeros = '0'.repeat(post.length);
      const [p, r] = [post, repetend].map((w) => w.replace(/^0+/, '')) as [string, string];
      const [a, b, c, d, e] = [pre || '0', p || '0', `1${zeros}`, r, '9'.repeat(repetend.length) + zeros];
      out.push(op('('), name('Integer'), op('('), num(a), op(')'), op('+'), name('Rational'), op('('), num(b), op(','), num(c));
      out.push(op(')'), op('+'), name('Rational'), op('('), num(d), op(','), num(e), op(')'), op(')'));
      run = [];
    }
  }
  return out;
}

/** auto_number: literals become Integer(..) / Float('..'), imaginary ones times I. */
export function autoNumber(tokens: readonly Tok[]): Tok[] {
  const out: Tok[] = [];
  for (const tok of tokens) {
    if (tok.t !== 'NUMBER') {
      out.push(tok);
      continue;
    }
    let n = tok.v;
    const imaginary = n.endsWith('j') || n.endsWith('J');
    if (imaginary) n = n.slice(0, -1);
    const isFloat = n.includes('.') || ((n.includes('e') || n.includes('E')) && !n.startsWith('0x') && !n.startsWith('0X'));
    // The literal travels as a quoted string typed NUMBER, like repr(str(number)).
    if (isFloat) out.push(name('Float'), op('('), num(`'${n}'`), op(')'));
    else out.push(name('Integer'), op('('), num(n), op(')'));
    if (imaginary) out.push(op('*'), name('I'));
  }
  return out;
}

// _add_factorial_tokens: wrap the preceding operand (a parenthesised run, maybe a call).
function addFactorial(fn: string, result: Tok[]): Tok[] {
  const last = result[result.length - 1];
  if (last === undefined || last.v === '(') throw new SympyParseError('misplaced !');
  let diff = 0;
  for (let i = result.length - 1; i >= 0; i--) {
    const v = (result[i] as Tok).v;
    if (v === ')') diff++;
    else if (v === '(') diff--;
    if (diff === 0) {
      const at = i - 1 >= 0 && (result[i - 1] as Tok).t === 'NAME' ? i - 1 : i;
      return [...result.slice(0, at), name(fn), op('('), ...result.slice(at), op(')')];
    }
  }
  return result;
}

/** factorial_notation: x! -> factorial(x), x!! -> factorial2(x). */
export function factorialNotation(tokens: readonly Tok[]): Tok[] {
  let out: Tok[] = [];
  let count = 0;
  for (const tok of tokens) {
    if ((tok.t === 'OP' || tok.t === 'ERRORTOKEN') && tok.v === '!') {
      count++;
    } else if (tok.t === 'ERRORTOKEN') {
      count = 0;
      out.push(op(tok.v));
    } else {
      if (count === 1) out = addFactorial('factorial', out);
      else if (count === 2) out = addFactorial('factorial2', out);
      else if (count > 2) throw new SympyParseError('!!!');
      count = 0;
      out.push(tok);
    }
  }
  return out;
}
