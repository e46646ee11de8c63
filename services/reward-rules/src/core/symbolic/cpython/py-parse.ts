// Python expression grammar for the code sympy's stringify_expr produces, as
// far as arithmetic goes: + - * / // % @ **, unary signs, calls, literals.
// Anything else (comparisons, tuples, subscripts, attributes, keywords) would
// make `(gt)-(given)` raise in Python, so it throws SympyParseError here.
import { SympyParseError, type Tok } from './py-tokenize.ts';

/** Python AST subset. `num` keeps the literal text; `str` a quoted token's contents. */
export type PyAst =
  | { k: 'num'; v: string }
  | { k: 'str'; v: string }
  | { k: 'name'; v: string }
  | { k: 'call'; f: PyAst; args: PyAst[] }
  | { k: 'bin'; op: string; l: PyAst; r: PyAst }
  | { k: 'unary'; op: string; e: PyAst };

// CPython's parser refuses more than 200 nested parentheses ("too many nested parentheses").
const MAX_NESTING = 200;
const ADDITIVE = new Set(['+', '-']);
const MULTIPLICATIVE = new Set(['*', '/', '//', '%', '@']);
const UNARY = new Set(['+', '-', '~']);

class Parser {
  private i = 0;
  private depth = 0;
  private readonly toks: readonly Tok[];

  constructor(toks: readonly Tok[]) {
    this.toks = toks.filter((t) => t.t !== 'NL');
  }

  parse(): PyAst {
    const e = this.sum();
    if (this.peek().t !== 'NEWLINE') throw new SympyParseError(`unexpected ${this.peek().v}`);
    return e;
  }

  private peek(): Tok {
    return this.toks[this.i] ?? { t: 'ENDMARKER', v: '' };
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'OP' && t.v === v;
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) throw new SympyParseError(`expected ${v}`);
    this.i++;
  }

  private sum(): PyAst {
    let l = this.term();
    while (this.peek().t === 'OP' && ADDITIVE.has(this.peek().v)) {
      const op = this.toks[this.i++] as Tok;
      l = { k: 'bin', op: op.v, l, r: this.term() };
    }
    return l;
  }

  private term(): PyAst {
    let l = this.factor();
    while (this.peek().t === 'OP' && MULTIPLICATIVE.has(this.peek().v)) {
      const op = this.toks[this.i++] as Tok;
      l = { k: 'bin', op: op.v, l, r: this.factor() };
    }
    return l;
  }

  private factor(): PyAst {
    if (this.peek().t === 'OP' && UNARY.has(this.peek().v)) {
      const op = (this.toks[this.i++] as Tok).v;
      return this.nested(() => ({ k: 'unary', op, e: this.factor() }));
    }
    return this.power();
  }

  // `**` binds tighter than a unary sign on its left, looser on its right.
  private power(): PyAst {
    const base = this.primary();
    if (!this.isOp('**')) return base;
    this.i++;
    return { k: 'bin', op: '**', l: base, r: this.factor() };
  }

  private primary(): PyAst {
    let e = this.atom();
    while (this.isOp('(')) {
      this.i++;
      const args: PyAst[] = [];
      while (!this.isOp(')')) {
        args.push(this.nested(() => this.sum()));
        if (!this.isOp(',')) break;
        this.i++;
      }
      this.expectOp(')');
      e = { k: 'call', f: e, args };
    }
    if (this.isOp('[') || this.isOp('.')) throw new SympyParseError('subscript or attribute');
    return e;
  }

  private atom(): PyAst {
    const t = this.peek();
    if (t.t === 'OP' && t.v === '(') {
      this.i++;
      const e = this.nested(() => this.sum());
      // "(a, b)" is a tuple and "()" an empty one: both fail in arithmetic.
      this.expectOp(')');
      return e;
    }
    this.i++;
    if ((t.t === 'NAME' || t.t === 'NUMBER') && t.v.startsWith("'")) return { k: 'str', v: t.v.slice(1, -1) };
    if (t.t === 'NUMBER' && t.v !== '') return { k: 'num', v: t.v };
    if (t.t === 'NAME') return { k: 'name', v: t.v };
    throw new SympyParseError(`unexpected token ${t.v}`);
  }

  private nested<T>(f: () => T): T {
    if (++this.depth > MAX_NESTING) throw new SympyParseError('too many nested parentheses');
    try {
      return f();
    } finally {
      this.depth--;
    }
  }
}

/** Parses the transformed token list (ending NEWLINE, ENDMARKER) into an AST. */
export function parsePyExpr(tokens: readonly Tok[]): PyAst {
  return new Parser(tokens).parse();
}
