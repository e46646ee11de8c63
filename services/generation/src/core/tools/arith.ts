import { AppError, ErrorCode } from '@rl/service-kit/core';

/** Longest expression accepted. */
export const MAX_EXPRESSION_CHARS = 1000;
/** Deepest nesting of parentheses, unary signs and powers. */
const MAX_DEPTH = 64;

// Maps, not object literals: a name like `constructor` must not find Object.prototype.
const CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);
type MathFn = { arity: [number, number]; fn: (...a: number[]) => number };
const FUNCTIONS: ReadonlyMap<string, MathFn> = new Map<string, MathFn>([
  ['sqrt', { arity: [1, 1], fn: Math.sqrt }],
  ['abs', { arity: [1, 1], fn: Math.abs }],
  ['round', { arity: [1, 1], fn: Math.round }],
  ['floor', { arity: [1, 1], fn: Math.floor }],
  ['ceil', { arity: [1, 1], fn: Math.ceil }],
  ['exp', { arity: [1, 1], fn: Math.exp }],
  ['ln', { arity: [1, 1], fn: Math.log }],
  ['log', { arity: [1, 2], fn: (x, b) => (b === undefined ? Math.log(x) : Math.log(x) / Math.log(b)) }],
  ['log10', { arity: [1, 1], fn: Math.log10 }],
  ['log2', { arity: [1, 1], fn: Math.log2 }],
  ['sin', { arity: [1, 1], fn: Math.sin }],
  ['cos', { arity: [1, 1], fn: Math.cos }],
  ['tan', { arity: [1, 1], fn: Math.tan }],
  ['min', { arity: [1, 64], fn: Math.min }],
  ['max', { arity: [1, 64], fn: Math.max }],
]);

const TOKEN = /(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|\/\/|[-+*/%^(),])/y;

type Token = { kind: 'num'; value: number; at: number } | { kind: 'id' | 'op'; text: string; at: number };

const bad = (message: string) => new AppError(ErrorCode.InvalidParams, message);

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < src.length && /\s/.test(src[pos] as string)) pos++;
    if (pos >= src.length) return out;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (m === null) throw bad(`unexpected character ${JSON.stringify(src[pos])} at position ${pos}`);
    if (m[1] !== undefined) out.push({ kind: 'num', value: Number(m[1]), at: pos });
    else if (m[2] !== undefined) out.push({ kind: 'id', text: m[2], at: pos });
    else out.push({ kind: 'op', text: m[3] as string, at: pos });
    pos = TOKEN.lastIndex;
  }
}

/**
 * Evaluates an arithmetic expression with a recursive-descent parser (never
 * `eval`): numbers, `+ - * / // % ^ **`, parentheses, unary signs, the
 * constants pi, e, tau and a few math functions. `^` and `**` are powers
 * (right-associative, binding tighter than unary minus: `-2^2` is -4).
 */
export function evaluateArithmetic(src: string): number {
  if (src.length > MAX_EXPRESSION_CHARS) throw bad(`expression longer than ${MAX_EXPRESSION_CHARS} characters`);
  const tokens = tokenize(src);
  let i = 0;
  const peek = () => tokens[i];
  const isOp = (t: Token | undefined, ...ops: string[]) => t !== undefined && t.kind === 'op' && ops.includes(t.text);
  const expect = (op: string) => {
    const t = tokens[i];
    if (!isOp(t, op)) throw bad(t === undefined ? `expected '${op}' at end of expression` : `expected '${op}' at position ${t.at}`);
    i++;
  };

  function additive(depth: number): number {
    let v = multiplicative(depth);
    while (isOp(peek(), '+', '-')) v = (tokens[i++] as { text: string }).text === '+' ? v + multiplicative(depth) : v - multiplicative(depth);
    return v;
  }
  function multiplicative(depth: number): number {
    let v = unary(depth);
    while (isOp(peek(), '*', '/', '//', '%')) {
      const op = (tokens[i++] as { text: string }).text;
      const r = unary(depth);
      if (op === '*') v *= r;
      else if (r === 0) throw bad('division by zero');
      else if (op === '/') v /= r;
      else if (op === '//') v = Math.floor(v / r);
      else v = v - r * Math.floor(v / r); // Python's %: the result takes the divisor's sign
    }
    return v;
  }
  function unary(depth: number): number {
    if (depth > MAX_DEPTH) throw bad('expression nested too deeply');
    if (isOp(peek(), '+', '-')) return (tokens[i++] as { text: string }).text === '-' ? -unary(depth + 1) : unary(depth + 1);
    return power(depth);
  }
  function power(depth: number): number {
    const base = primary(depth);
    if (!isOp(peek(), '^', '**')) return base;
    i++;
    return base ** unary(depth + 1);
  }
  function primary(depth: number): number {
    const t = tokens[i++];
    if (t === undefined) throw bad('unexpected end of expression');
    if (t.kind === 'num') return t.value;
    if (t.kind === 'op') {
      if (t.text !== '(') throw bad(`unexpected '${t.text}' at position ${t.at}`);
      const v = additive(depth + 1);
      expect(')');
      return v;
    }
    const name = t.text.toLowerCase();
    if (isOp(peek(), '(')) {
      const f = FUNCTIONS.get(name);
      if (f === undefined) throw bad(`unknown function '${t.text}'`);
      i++;
      const args = [additive(depth + 1)];
      while (isOp(peek(), ',')) {
        i++;
        args.push(additive(depth + 1));
      }
      expect(')');
      if (args.length < f.arity[0] || args.length > f.arity[1])
        throw bad(`${name} takes ${f.arity[0]}${f.arity[1] > f.arity[0] ? `-${f.arity[1]}` : ''} arguments`);
      return f.fn(...args);
    }
    const c = CONSTANTS.get(name);
    if (c === undefined) throw bad(`unknown name '${t.text}'`);
    return c;
  }

  if (tokens.length === 0) throw bad('empty expression');
  const value = additive(0);
  const rest = peek();
  if (rest !== undefined) throw bad(`unexpected ${rest.kind === 'num' ? String(rest.value) : `'${rest.text}'`} at position ${rest.at}`);
  if (!Number.isFinite(value)) throw bad('result is not a finite number');
  return value;
}

/** A result as the calculator prints it: integral values in full digits, others to 15 significant digits. */
export function formatNumber(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return BigInt(x).toString();
  return String(Number(x.toPrecision(15)));
}
