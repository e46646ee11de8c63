// sympy 1.14 implicit_multiplication_application = split_symbols,
// implicit_multiplication, implicit_application, function_exponentiation.
import { SympyParseError, type Tok, type TokType } from '../cpython/py-tokenize.ts';
import { isCallableName } from './sympy-names.ts';
import { splitSymbols } from './sympy-split.ts';

/** sympy AppliedFunction: a callable NAME with its parenthesised arguments. */
interface Applied {
  af: true;
  fn: Tok;
  args: Item[];
}
type Item = Tok | Applied;
type Step = (tokens: Item[]) => Item[];

const op = (v: string): Tok => ({ t: 'OP', v });
// `tok[0]` of an AppliedFunction is its function token, never equal to a token type.
const kind = (x: Item | undefined): TokType | 'AF' | undefined => (x === undefined ? undefined : 'af' in x ? 'AF' : x.t);
const isOp = (x: Item | undefined, v: string): boolean => x !== undefined && !('af' in x) && x.t === 'OP' && x.v === v;
const callable = (x: Item | undefined): boolean => x !== undefined && !('af' in x) && isCallableName(x.v);

/** _group_parentheses + _apply_functions: "(..)" groups, recursed, attached to callables. */
function applyGroups(tokens: readonly Item[], recurse: Step): Item[] {
  const grouped: Array<Item | Item[]> = [];
  const stacks: Item[][] = [];
  for (const tok of tokens) {
    if (isOp(tok, '(')) {
      stacks.push([tok]);
      continue;
    }
    if (isOp(tok, ')')) {
      const stack = stacks.pop();
      if (stack === undefined) throw new SympyParseError('unbalanced )');
      stack.push(tok);
      const parent = stacks[stacks.length - 1];
      if (parent !== undefined) parent.push(...stack);
      else grouped.push([stack[0] as Item, ...recurse(stack.slice(1, -1)), tok]);
      continue;
    }
    const top = stacks[stacks.length - 1];
    if (top !== undefined) top.push(tok);
    else grouped.push(tok);
  }
  if (stacks.length > 0) throw new SympyParseError('mismatched parentheses');
  const out: Item[] = [];
  let symbol: Tok | null = null;
  for (const g of grouped) {
    if (Array.isArray(g)) {
      if (symbol !== null && callable(symbol)) {
        out[out.length - 1] = { af: true, fn: symbol, args: g };
        symbol = null;
      } else {
        out.push(...g);
      }
    } else if (kind(g) === 'NAME') {
      symbol = g as Tok;
      out.push(g);
    } else {
      symbol = null;
      out.push(g);
    }
  }
  return out;
}

function flatten(items: readonly Item[]): Item[] {
  return items.flatMap((x) => ('af' in x ? [x.fn, ...x.args] : [x]));
}

function implicitMultiplication(tokens: Item[]): Item[] {
  const items = applyGroups(tokens, implicitMultiplication);
  const out: Item[] = [];
  let skip = false;
  for (let i = 0; i + 1 < items.length; i++) {
    const tok = items[i] as Item;
    const next = items[i + 1] as Item;
    out.push(tok);
    if (skip) {
      skip = false;
      continue;
    }
    if (isOp(tok, '.') && kind(next) === 'NAME') {
      skip = true;
      continue;
    }
    let star = false;
    if ('af' in tok) {
      if ('af' in next || kind(next) === 'NAME') star = true;
      else if (isOp(next, '(')) {
        // Function('f') followed by "(" is demoted to Symbol('f'): f(x) reads as f*(x).
        if (tok.fn.v === 'Function') tok.fn = { t: 'NAME', v: 'Symbol' };
        star = true;
      }
    } else if (isOp(tok, ')')) {
      star = 'af' in next || kind(next) === 'NAME' || isOp(next, '(');
    } else if (kind(tok) === 'NAME' && !callable(tok)) {
      star = 'af' in next || kind(next) === 'NAME' || isOp(next, '(');
    }
    if (star) out.push(op('*'));
  }
  if (items.length > 0) out.push(items[items.length - 1] as Item);
  return flatten(out);
}

function implicitApplication(tokens: Item[]): Item[] {
  const items = applyGroups(tokens, implicitApplication);
  const out: Item[] = [];
  let appendParen = 0;
  let skip = 0;
  let exponentSkip = false;
  for (let i = 0; i + 1 < items.length; i++) {
    const tok = items[i] as Item;
    const next = items[i + 1] as Item;
    out.push(tok);
    const nk = kind(next);
    if (kind(tok) === 'NAME' && nk !== 'OP' && nk !== 'ENDMARKER' && nk !== 'NEWLINE') {
      if (callable(tok)) {
        out.push(op('('));
        appendParen++;
      }
    } else if (kind(tok) === 'NAME' && isOp(next, '**')) {
      if (callable(tok)) exponentSkip = true;
    } else if (exponentSkip) {
      if ('af' in tok || isOp(tok, '*')) {
        if (!isOp(next, '*')) {
          if (!isOp(next, '(')) {
            out.push(op('('));
            appendParen++;
          }
          exponentSkip = false;
        }
      }
    } else if (appendParen > 0) {
      if (isOp(next, '^') || isOp(next, '**') || isOp(next, '*')) {
        skip = 1;
        continue;
      }
      if (skip > 0) {
        skip--;
        continue;
      }
      out.push(op(')'));
      appendParen--;
    }
  }
  if (items.length > 0) out.push(items[items.length - 1] as Item);
  for (; appendParen > 0; appendParen--) out.push(op(')'));
  return flatten(out);
}

function functionExponentiation(tokens: readonly Tok[]): Tok[] {
  const out: Tok[] = [];
  let exponent: Tok[] = [];
  let consuming = false;
  let level = 0;
  for (let i = 0; i + 1 < tokens.length; i++) {
    let tok = tokens[i] as Tok;
    const next = tokens[i + 1] as Tok;
    if (tok.t === 'NAME' && next.t === 'OP' && next.v === '**') {
      if (isCallableName(tok.v)) consuming = true;
    } else if (consuming) {
      if (tok.t === 'NAME' && tok.v === 'Function') tok = { t: 'NAME', v: 'Symbol' };
      exponent.push(tok);
      if (tok.t === 'OP' && next.t === 'OP' && tok.v === ')' && next.v === '(') consuming = false;
      if (tok.t === 'OP' && next.t === 'OP' && tok.v === '*' && next.v === '(') {
        consuming = false;
        exponent.pop();
      }
      continue;
    } else if (exponent.length > 0 && !consuming) {
      if (tok.t === 'OP' && tok.v === '(') level++;
      else if (tok.t === 'OP' && tok.v === ')') level--;
      if (level === 0) {
        out.push(tok, ...exponent);
        exponent = [];
        continue;
      }
    }
    out.push(tok);
  }
  if (tokens.length > 0) out.push(tokens[tokens.length - 1] as Tok);
  out.push(...exponent);
  return out;
}

/** sympy `implicit_multiplication_application` on a token list. */
export function implicitMultiplicationApplication(tokens: readonly Tok[]): Tok[] {
  const split = splitSymbols(tokens);
  const mult = implicitMultiplication(split) as Tok[];
  const app = implicitApplication(mult) as Tok[];
  return functionExponentiation(app);
}
