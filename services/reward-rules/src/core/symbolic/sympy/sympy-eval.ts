// Evaluates the Python AST of a parsed sympy expression the way Python + sympy
// would, delegating every number operation to an Arith (exact or sampled).
import type { PyAst } from '../cpython/py-parse.ts';
import { SympyParseError } from '../cpython/py-tokenize.ts';

/** Binary operators Python applies to sympy values. */
export type BinOp = '+' | '-' | '*' | '/' | '**' | '//';

/** Number operations with sympy semantics; V is the arithmetic's value type. */
export interface Arith<V> {
  /** A sympy Integer from a canonical decimal string. */
  integer(digits: string): V;
  /** A sympy Float from its literal text. */
  float(literal: string): V;
  symbol(name: string): V;
  constant(name: string): V;
  binary(op: BinOp, a: V, b: V): V;
  neg(a: V): V;
  /** A sympy function of the namespace applied to values. */
  call(name: string, args: V[]): V;
  /** The integer value of a sympy Integer, or null. */
  asInteger(a: V): bigint | null;
}

const BINARY = new Set<string>(['+', '-', '*', '/', '**', '//']);

/** Python `int(literal)` for an integer literal token (underscores, 0x/0o/0b). */
function pyIntLiteral(text: string): bigint {
  const t = text.replaceAll('_', '');
  if (!/^(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/.test(t)) throw new SympyParseError(`bad int ${text}`);
  return BigInt(t);
}

/** Evaluates `ast` with `arith`; throws where Python/sympy would raise. */
export function evaluate<V>(ast: PyAst, arith: Arith<V>): V {
  // Integer(...) / Rational(...) take Python ints or sympy Integers.
  const intArg = (a: PyAst | undefined): bigint => {
    if (a === undefined) throw new SympyParseError('missing argument');
    if (a.k === 'num') return pyIntLiteral(a.v);
    const n = arith.asInteger(ev(a));
    if (n === null) throw new SympyParseError('integer expected');
    return n;
  };
  const strArg = (args: PyAst[]): string => {
    const a = args[0];
    if (args.length !== 1 || a === undefined || a.k !== 'str') throw new SympyParseError('string expected');
    return a.v;
  };
  const call = (name: string, args: PyAst[]): V => {
    switch (name) {
      case 'Integer':
        if (args.length !== 1) throw new SympyParseError('Integer arity');
        return arith.integer(intArg(args[0]).toString());
      case 'Rational': {
        if (args.length !== 2) throw new SympyParseError('Rational arity');
        const [p, q] = [intArg(args[0]), intArg(args[1])];
        return arith.binary('/', arith.integer(p.toString()), arith.integer(q.toString()));
      }
      case 'Float':
        return arith.float(strArg(args));
      case 'Symbol':
        return arith.symbol(strArg(args));
      case 'Number': {
        // sympify of the digit run split_symbols cut out: only a canonical decimal is an Integer.
        const digits = strArg(args);
        if (!/^(?:0|[1-9][0-9]*)$/.test(digits)) throw new SympyParseError(`Number('${digits}')`);
        return arith.integer(digits);
      }
      default:
        return arith.call(name, args.map(ev));
    }
  };
  const ev = (a: PyAst): V => {
    switch (a.k) {
      case 'num':
        // A bare Python number never survives auto_number.
        throw new SympyParseError('bare number');
      case 'str':
        throw new SympyParseError('string in arithmetic');
      case 'name':
        return arith.constant(a.v);
      case 'unary':
        if (a.op === '-') return arith.neg(ev(a.e));
        if (a.op === '+') return ev(a.e);
        throw new SympyParseError(`unary ${a.op}`);
      case 'bin':
        if (!BINARY.has(a.op)) throw new SympyParseError(`operator ${a.op}`);
        return arith.binary(a.op as BinOp, ev(a.l), ev(a.r));
      case 'call':
        // Function('f')(x) never survives implicit multiplication; other callees are not callable.
        if (a.f.k !== 'name') throw new SympyParseError('call of a non-name');
        return call(a.f.v, a.args);
    }
  };
  return ev(ast);
}

/** Whether evaluating `ast` creates any Symbol (then identity is tested at sample points). */
export function hasSymbols(ast: PyAst): boolean {
  switch (ast.k) {
    case 'call':
      return (ast.f.k === 'name' && ast.f.v === 'Symbol') || hasSymbols(ast.f) || ast.args.some(hasSymbols);
    case 'bin':
      return hasSymbols(ast.l) || hasSymbols(ast.r);
    case 'unary':
      return hasSymbols(ast.e);
    default:
      return false;
  }
}
