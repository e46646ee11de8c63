// pylatexenc 2.10 macro-argument parsing: MacroStandardArgsParser.parse_args,
// LatexWalker.get_latex_expression / get_latex_maybe_optional_arg, and the
// VerbatimArgsParser used by \verb and the verbatim environment.
import { type ArgList, EndOfStream, isSpaceCp, LatexParseError, type LNode } from './latex-nodes.ts';
import { getToken, type MathState } from './latex-tokens.ts';
import type { Walker } from './latex-walker.ts';

const NO_BRACES: ReadonlyArray<readonly [string, string]> = [];
const SQUARE: ReadonlyArray<readonly [string, string]> = [['[', ']']];
const TEXT_STATE: MathState = { inMath: false, delimiter: null };

/** get_latex_expression: one token or braced group, as a macro argument. */
function expression(w: Walker, pos: number, state: MathState): { node: LNode; end: number } {
  const t = getToken(w.cs, pos, NO_BRACES, false, state);
  const end = t.pos + t.len;
  switch (t.tok) {
    case 'macro':
      // An `\end` where an argument is expected is an empty argument, left unread.
      if (t.arg === 'end') return { node: { t: 'chars', chars: '' }, end: t.pos };
      return { node: { t: 'macro', name: t.arg, postSpace: t.postSpace, args: null, optArg: null, legacyArgs: null }, end };
    case 'specials':
      return { node: { t: 'specials', chars: t.arg }, end };
    case 'comment':
      return expression(w, end, state);
    case 'brace_open':
      return w.group(t.pos, '{', '}', state);
    case 'brace_close':
      return { node: { t: 'chars', chars: '' }, end: t.pos };
    case 'mathmode_inline':
    case 'mathmode_display':
      if (t.arg.startsWith('\\')) {
        return { node: { t: 'macro', name: t.arg, postSpace: t.postSpace, args: null, optArg: null, legacyArgs: null }, end };
      }
      return { node: { t: 'chars', chars: t.arg }, end };
    default:
      return { node: { t: 'chars', chars: t.arg }, end };
  }
}

/** get_latex_maybe_optional_arg: a `[...]` group, or null. */
function optional(w: Walker, pos: number, state: MathState): { node: LNode; end: number } | null {
  let t: ReturnType<typeof getToken>;
  try {
    t = getToken(w.cs, pos, SQUARE, false, state);
  } catch (e) {
    if (e instanceof EndOfStream) return null;
    throw e;
  }
  return t.tok === 'brace_open' && t.arg === '[' ? w.group(pos, '[', ']', state) : null;
}

/** MacroStandardArgsParser.parse_args for `argspec` starting at `pos`. */
export function parseArgs(w: Walker, argspec: string, pos: number, state: MathState, optionalNoSpace: boolean): { args: ArgList; end: number } {
  const args: ArgList = [];
  let p = pos;
  for (const kind of argspec) {
    if (kind === '{') {
      const r = expression(w, p, state);
      p = r.end;
      args.push(r.node);
    } else if (kind === '[') {
      // `\\` in AMS style: a "[" after a space is not its optional argument.
      if (optionalNoSpace && p < w.cs.length && isSpaceCp(w.cs[p])) {
        args.push(null);
        continue;
      }
      const r = optional(w, p, state);
      if (r !== null) p = r.end;
      args.push(r === null ? null : r.node);
    } else {
      const t = getToken(w.cs, p, NO_BRACES, true, TEXT_STATE);
      if (t.tok === 'char' && t.arg.startsWith('*')) {
        args.push({ t: 'chars', chars: '*' });
        p = t.pos + 1;
      } else {
        args.push(null);
      }
    }
  }
  return { args, end: p };
}

/** VerbatimArgsParser('verb-macro'): `\verb|...|`; throws like pylatexenc on a missing delimiter. */
export function parseVerbMacro(cs: readonly string[], start: number): { node: LNode; end: number } {
  let pos = start;
  // pylatexenc indexes `w.s[pos]` unguarded: at the end of input that is an IndexError,
  // which escapes the tolerant parser.
  if (pos >= cs.length) throw new Error('IndexError in \\verb');
  while (isSpaceCp(cs[pos])) {
    pos++;
    if (pos >= cs.length) throw new LatexParseError('missing \\verb argument');
  }
  const delim = cs[pos] as string;
  const close = cs.indexOf(delim, pos + 1);
  if (close === -1) throw new LatexParseError('unterminated \\verb');
  return { node: { t: 'chars', chars: cs.slice(pos + 1, close).join('') }, end: close + 1 };
}

const END_VERBATIM = [...'\\end{verbatim}'];

/** VerbatimArgsParser('verbatim-environment'): everything up to `\end{verbatim}`. */
export function parseVerbatimEnv(cs: readonly string[], pos: number): { args: ArgList; end: number } {
  for (let i = pos; i + END_VERBATIM.length <= cs.length; i++) {
    if (END_VERBATIM.every((c, k) => cs[i + k] === c)) {
      return { args: [{ t: 'chars', chars: cs.slice(pos, i).join('') }], end: i };
    }
  }
  throw new LatexParseError('no \\end{verbatim}');
}
