// CPython 3.11 `tokenize.generate_tokens` on the one-line expressions sympy's
// parse_expr receives. Inputs whose tokens could only end in a SyntaxError or
// TypeError after eval (strings, comments, statements on several lines) throw.

/** Token types of Python's tokenize module that sympy's transformations look at. */
export type TokType = 'NAME' | 'NUMBER' | 'OP' | 'STRING' | 'ERRORTOKEN' | 'NEWLINE' | 'NL' | 'ENDMARKER';

/** A (type, string) pair as sympy's transformations see it. */
export interface Tok {
  t: TokType;
  v: string;
}

/** Input sympy would reject: parse_expr raises TokenError, SyntaxError or TypeError. */
export class SympyParseError extends Error {}

const D = '[0-9](?:_?[0-9])*';
const EXPONENT = `[eE][-+]?${D}`;
const POINTFLOAT = `(?:${D}\\.(?:${D})?|\\.${D})(?:${EXPONENT})?`;
const FLOATNUM = `(?:${POINTFLOAT}|${D}${EXPONENT})`;
const IMAG = `(?:${D}[jJ]|${FLOATNUM}[jJ])`;
const INTNUM = `(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9])*)`;
// tokenize.Number: the first alternative that matches wins, as in Python's re.
const NUMBER = new RegExp(`^(?:${IMAG}|${FLOATNUM}|${INTNUM})`);
const NAME = /^[\p{L}\p{N}_]+/u;
const ID_START = /^[\p{ID_Start}_]/u;
// tokenize's EXACT_TOKEN_TYPES, longest first.
const OPERATORS = [
  '**=', '//=', '>>=', '<<=', '...', '!=', '%=', '&=', '**', '*=', '+=', '-=', '->', '//', '/=', ':=',
  '<<', '<=', '==', '>=', '>>', '@=', '^=', '|=', '%', '&', '(', ')', '*', '+', ',', '-', '.', '/',
  ':', ';', '<', '=', '>', '@', '[', ']', '^', '{', '|', '}', '~',
];

/** Python tokenize of `s` (already stripped), ending with NEWLINE '' and ENDMARKER ''. */
export function pyTokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let level = 0;
  let pos = 0;
  while (pos < s.length) {
    const c = s[pos] as string;
    if (c === ' ' || c === '\t' || c === '\f') {
      pos++;
      continue;
    }
    if (c === '\n' || (c === '\r' && s[pos + 1] === '\n')) {
      // Inside brackets a newline is NL; outside it would start a second statement.
      if (level <= 0) throw new SympyParseError('newline outside brackets');
      const len = c === '\r' ? 2 : 1;
      out.push({ t: 'NL', v: s.slice(pos, pos + len) });
      pos += len;
      continue;
    }
    if (c === '#' || c === "'" || c === '"' || c === '\\') {
      throw new SympyParseError(`unsupported character ${c}`);
    }
    const num = NUMBER.exec(s.slice(pos));
    if (num !== null) {
      out.push({ t: 'NUMBER', v: num[0] });
      pos += num[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, pos));
    if (op !== undefined) {
      if ('([{'.includes(op)) level++;
      else if (')]}'.includes(op)) level--;
      out.push({ t: 'OP', v: op });
      pos += op.length;
      continue;
    }
    const name = NAME.exec(s.slice(pos));
    if (name !== null) {
      // A \w+ run whose first character cannot start an identifier is yielded as OP.
      out.push({ t: ID_START.test(name[0]) ? 'NAME' : 'OP', v: name[0] });
      pos += name[0].length;
      continue;
    }
    const cp = String.fromCodePoint(s.codePointAt(pos) as number);
    out.push({ t: 'ERRORTOKEN', v: cp });
    pos += cp.length;
  }
  // "EOF in multi-line statement"
  if (level !== 0) throw new SympyParseError('unbalanced brackets');
  out.push({ t: 'NEWLINE', v: '' }, { t: 'ENDMARKER', v: '' });
  return out;
}
