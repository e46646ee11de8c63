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
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '!=',
  '%=',
  '&=',
  '**',
  '*=',
  '+=',
  '-=',
  '->',
  '//',
  '/=',
  ':=',
  '<<',
  '<=',
  '==',
  '>=',
  '>>',
  '@=',
  '^=',
  '|=',
  '%',
  '&',
  '(',
  ')',
  '*',
  '+',
  ',',
  '-',
  '.',
  '/',
  ':',
  ';',
  '<',
  '=',
  '>',
  '@',
  '[',
  ']',
  '^',
  '{',
  '|',
  '}',
  '~',
];

/** The token starting exactly at `pos`, or null where tokenize would yield an ERRORTOKEN. */
function tokenAt(s: string, pos: number): Tok | null {
  const c = s[pos] as string;
  if (c === '\n' || (c === '\r' && s[pos + 1] === '\n')) return { t: 'NL', v: c === '\r' ? '\r\n' : '\n' };
  // Strings, comments and line continuations never end in an equal answer.
  if (c === '#' || c === "'" || c === '"' || (c === '\\' && (s[pos + 1] === '\n' || s[pos + 1] === '\r'))) {
    throw new SympyParseError(`unsupported character ${c}`);
  }
  const num = NUMBER.exec(s.slice(pos));
  if (num !== null) return { t: 'NUMBER', v: num[0] };
  const op = OPERATORS.find((o) => s.startsWith(o, pos));
  if (op !== undefined) return { t: 'OP', v: op };
  const name = NAME.exec(s.slice(pos));
  // A \w+ run whose first character cannot start an identifier is yielded as OP.
  if (name !== null) return { t: ID_START.test(name[0]) ? 'NAME' : 'OP', v: name[0] };
  return null;
}

/** Python tokenize of `s` (already stripped), ending with NEWLINE '' and ENDMARKER ''. */
export function pyTokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let level = 0;
  let pos = 0;
  while (pos < s.length) {
    let q = pos;
    while (s[q] === ' ' || s[q] === '\t' || s[q] === '\f') q++;
    if (q >= s.length) break;
    const tok = tokenAt(s, q);
    if (tok === null) {
      // tokenize's pseudo-token regex failed at `pos`: the character there (maybe a blank) is an ERRORTOKEN.
      const cp = String.fromCodePoint(s.codePointAt(pos) as number);
      out.push({ t: 'ERRORTOKEN', v: cp });
      pos += cp.length;
      continue;
    }
    if (tok.t === 'NL' && level <= 0) throw new SympyParseError('newline outside brackets');
    if (tok.t === 'OP' && '([{'.includes(tok.v)) level++;
    else if (tok.t === 'OP' && ')]}'.includes(tok.v)) level--;
    out.push(tok);
    pos = q + tok.v.length;
  }
  // "EOF in multi-line statement"
  if (level !== 0) throw new SympyParseError('unbalanced brackets');
  // An empty input has no NEWLINE token.
  if (s.length > 0) out.push({ t: 'NEWLINE', v: '' });
  out.push({ t: 'ENDMARKER', v: '' });
  return out;
}
