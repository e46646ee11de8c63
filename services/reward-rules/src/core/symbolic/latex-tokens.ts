// pylatexenc 2.10 LatexWalker.get_token (tolerant parsing), over code points.
import { PY_WORD_CLASS_BODY } from '../py/regex.ts';
import { PY_WS_CLASS_BODY } from '../py/whitespace.ts';
import { SPECIALS_TEXT } from './latex-specs.ts';
import { EndOfStream, isAlphaCp, isSpaceCp, type LToken } from './latex-nodes.ts';

const ENV_NAME = new RegExp(`^[${PY_WS_CLASS_BODY}]*\\{([${PY_WORD_CLASS_BODY}* ._-]+)\\}`, 'u');
const COMMENT_END = new RegExp(`(\\n|\\r|\\n\\r)([${PY_WS_CLASS_BODY}]*)`, 'u');
const SPECIALS = [...SPECIALS_TEXT.keys()];

/** Parser state that influences tokenising: only `$$` inside `$...$` math. */
export interface MathState {
  inMath: boolean;
  delimiter: string | null;
}

function tok(kind: LToken['tok'], arg: string, pos: number, len: number, preSpace: string, postSpace = ''): LToken {
  return { tok: kind, arg, pos, len, preSpace, postSpace };
}

function macroToken(cs: readonly string[], pos: number, space: string, environments: boolean): LToken {
  const n = cs.length;
  if (pos + 1 >= n) throw new EndOfStream('');
  let macro = cs[pos + 1] as string;
  let i = 2;
  const alpha = isAlphaCp(macro);
  if (alpha) while (pos + i < n && isAlphaCp(cs[pos + i])) macro += cs[pos + i++];
  if (macro === '[' || macro === ']') return tok('mathmode_display', `\\${macro}`, pos, i, space);
  if (macro === '(' || macro === ')') return tok('mathmode_inline', `\\${macro}`, pos, i, space);
  if (environments && (macro === 'begin' || macro === 'end')) {
    const m = ENV_NAME.exec(cs.slice(pos + i).join(''));
    // Tolerant mode: a bad \begin/\end becomes a placeholder char token.
    if (m === null) return tok('char', `\\${macro}`, pos, i, space);
    const kind = macro === 'begin' ? 'begin_environment' : 'end_environment';
    return tok(kind, m[1] as string, pos, i + [...m[0]].length, space);
  }
  let post = '';
  // LaTeX eats the blanks after an alphabetic macro name, but not a paragraph break.
  if (alpha) {
    while (pos + i < n && isSpaceCp(cs[pos + i])) {
      post += cs[pos + i++];
      if (post.endsWith('\n\n')) {
        post = post.slice(0, -2);
        i -= 2;
        break;
      }
    }
  }
  return tok('macro', macro, pos, i, space, post);
}

function commentToken(cs: readonly string[], pos: number, space: string): LToken {
  const rest = cs.slice(pos).join('');
  const m = COMMENT_END.exec(rest);
  let argLen: number;
  let len: number;
  let post = '';
  if (m === null) {
    argLen = len = cs.length - pos;
  } else {
    const start = [...rest.slice(0, m.index)].length;
    argLen = start;
    const extra = m[2] as string;
    if (extra.startsWith('\n') || extra.startsWith('\r')) {
      len = start;
    } else {
      len = start + [...m[0]].length;
      post = m[0];
    }
  }
  return tok('comment', cs.slice(pos + 1, pos + argLen).join(''), pos, len, space, post);
}

/** LatexWalker.get_token: the next token at `pos`; throws EndOfStream at the end. */
export function getToken(
  cs: readonly string[],
  pos: number,
  extraBraces: readonly (readonly [string, string])[],
  environments: boolean,
  state: MathState,
): LToken {
  let space = '';
  while (pos < cs.length && isSpaceCp(cs[pos])) {
    space += cs[pos++];
    // Two newlines are a paragraph break, returned as a char token.
    if (space.endsWith('\n\n')) return tok('char', '\n\n', pos - 2, 2, space.slice(0, -2));
  }
  if (pos >= cs.length) throw new EndOfStream(space);
  const c = cs[pos] as string;
  if (c === '\\') return macroToken(cs, pos, space, environments);
  if (c === '%') return commentToken(cs, pos, space);
  if (c === '{' || extraBraces.some((b) => b[0] === c)) return tok('brace_open', c, pos, 1, space);
  if (c === '}' || extraBraces.some((b) => b[1] === c)) return tok('brace_close', c, pos, 1, space);
  if (c === '$' && cs[pos + 1] === '$' && !(state.inMath && state.delimiter === '$')) {
    return tok('mathmode_display', '$$', pos, 2, space);
  }
  if (c === '$') return tok('mathmode_inline', '$', pos, 1, space);
  let best = '';
  for (const sp of SPECIALS) {
    if (sp.length > best.length && [...sp].every((ch, k) => cs[pos + k] === ch)) best = sp;
  }
  if (best !== '') return tok('specials', best, pos, best.length, space);
  return tok('char', c, pos, 1, space);
}
