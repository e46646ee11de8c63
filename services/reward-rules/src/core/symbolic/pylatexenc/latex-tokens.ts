// pylatexenc 2.10 LatexWalker.get_token (tolerant parsing), over code points.
import { PY_WORD_CLASS_BODY } from '../../py/regex.ts';
import { SPECIALS_TEXT } from './latex-specs.ts';
import { EndOfStream, isAlphaCp, isSpaceCp, type LToken } from './latex-nodes.ts';

// One code point of pylatexenc's environment-name class `[\w* ._-]`.
const ENV_NAME_CHAR = new RegExp(`^[${PY_WORD_CLASS_BODY}* ._-]$`, 'u');
const SPECIALS = [...SPECIALS_TEXT.keys()];

/** `re.match(r'^\s*\{([\w* ._-]+)\}', s[pos:])` by scanning: [name, code points matched] or null. */
function envName(cs: readonly string[], pos: number): [string, number] | null {
  let i = pos;
  while (isSpaceCp(cs[i])) i++;
  if (cs[i] !== '{') return null;
  const start = ++i;
  while (i < cs.length && ENV_NAME_CHAR.test(cs[i] as string)) i++;
  if (i === start || cs[i] !== '}') return null;
  return [cs.slice(start, i).join(''), i + 1 - pos];
}

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
    const m = envName(cs, pos + i);
    // Tolerant mode: a bad \begin/\end becomes a placeholder char token.
    if (m === null) return tok('char', `\\${macro}`, pos, i, space);
    const kind = macro === 'begin' ? 'begin_environment' : 'end_environment';
    return tok(kind, m[0], pos, i + m[1], space);
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

// `(\n|\r|\n\r)(?P<extraspace>\s*)` searched from the "%": the comment runs to the
// first line break; the break and the blanks after it are its post-space, unless
// they hold a second line break (a paragraph), which is left in the input.
function commentToken(cs: readonly string[], pos: number, space: string): LToken {
  let nl = pos;
  while (nl < cs.length && cs[nl] !== '\n' && cs[nl] !== '\r') nl++;
  const comment = cs.slice(pos + 1, nl).join('');
  if (nl >= cs.length) return tok('comment', comment, pos, cs.length - pos, space);
  let end = nl + 1;
  while (isSpaceCp(cs[end])) end++;
  const extra = cs[nl + 1];
  if (end > nl + 1 && (extra === '\n' || extra === '\r')) return tok('comment', comment, pos, nl - pos, space);
  return tok('comment', comment, pos, end - pos, space, cs.slice(nl, end).join(''));
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
