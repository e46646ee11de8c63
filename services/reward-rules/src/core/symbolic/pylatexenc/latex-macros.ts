// Macros whose pylatexenc 2.10 text is computed from their arguments: format
// strings, accents, math alphabets and the few callables of the default specs.
import { pyStrip } from '../../py/whitespace.ts';
import type { LNode } from './latex-nodes.ts';

/** What a macro handler may ask of the LatexNodes2Text port. */
export interface TextCtx {
  nodelistToText(nodes: ReadonlyArray<LNode | null>): string;
  /** `_groupnodecontents_to_text`: a group's contents, any other node's text, '' for null. */
  contents(node: LNode | null): string;
}
type MacroNode = Extract<LNode, { t: 'macro' }>;
type Handler = (n: MacroNode, ctx: TextCtx) => string;

/** Replacement strings with %-placeholders (LatexNodes2Text.apply_simplify_repl). */
export const MACRO_FORMATS: ReadonlyMap<string, string> = new Map([
  ['sqrt', '\u221a(%(2)s)'],
  ['ket', '|%s\u27e9'],
  ['bra', '\u27e8%s|'],
  ['braket', '\u27e8%s|%s\u27e9'],
  ['ketbra', '|%s\u27e9\u27e8%s|'],
  ['url', '<%s>'],
  ['footnote', '[%(2)s]'],
  ['textcolor', '%(3)s'],
  ['colorbox', '%(3)s'],
  ['fcolorbox', '%(5)s'],
  ['frac', '%s/%s'],
  ['nicefrac', '%s/%s'],
  ['textfrac', '%s/%s'],
  ['hint', 'Hint: %s'],
  ['hints', 'Hints: %s'],
  ['hinweis', 'Hinweis: %s'],
  ['hinweise', 'Hinweise: %s'],
  ...(
    'overline underline widehat widetilde wideparen overleftarrow overrightarrow overleftrightarrow ' +
    'underleftarrow underrightarrow underleftrightarrow overbrace underbrace overgroup undergroup ' +
    'overbracket underbracket overlinesegment underlinesegment overleftharpoon overrightharpoon'
  )
    .split(' ')
    .map((n) => [n, '%s'] as [string, string]),
]);

/** Macros rendered as the concatenation of their arguments (MacroTextSpec discard=False). */
export const JOIN_ARGS: ReadonlySet<string> = new Set(['mathrm', 'emph', 'textrm', 'textit', 'textbf', 'textsc', 'textsl', 'text']);

const ACCENTS: Record<string, string> = {
  "'": '\u0301',
  '`': '\u0300',
  '"': '\u0308',
  c: '\u0327',
  '^': '\u0302',
  '~': '\u0303',
  H: '\u030b',
  k: '\u0328',
  '=': '\u0304',
  b: '\u0331',
  '.': '\u0307',
  d: '\u0323',
  r: '\u030a',
  u: '\u0306',
  v: '\u030c',
  vec: '\u20d7',
  dot: '\u0307',
  hat: '\u0302',
  check: '\u030c',
  breve: '\u0306',
  acute: '\u0301',
  grave: '\u0300',
  tilde: '\u0303',
  bar: '\u0305',
  ddot: '\u0308',
  not: '\u0338',
};

// _fmt_math_style_offsets / _fmt_math_style_exceptions: (capital A, small a) code points.
const STYLES: Record<string, readonly [number, number, Record<string, number>]> = {
  mathbf: [0x1d400, 0x1d41a, {}],
  mathit: [0x1d434, 0x1d44e, { h: 0x210e }],
  mathsf: [0x1d5a0, 0x1d5ba, {}],
  mathbb: [0x1d538, 0x1d552, { C: 0x2102, H: 0x210d, N: 0x2115, P: 0x2119, Q: 0x211a, R: 0x211d, Z: 0x2124 }],
  mathtt: [0x1d670, 0x1d68a, {}],
  mathcal: [0x1d49c, 0x1d4b6, { B: 0x212c, E: 0x2130, F: 0x2131, H: 0x210b, I: 0x2110, L: 0x2112, M: 0x2133, R: 0x211b, e: 0x212f, g: 0x210a, o: 0x2134 }],
  mathfrak: [0x1d504, 0x1d51e, { C: 0x212d, H: 0x210c, I: 0x2111, R: 0x211c, Z: 0x2128 }],
};
STYLES['mathscr'] = STYLES['mathcal'] as (typeof STYLES)[string];

function styled(text: string, style: readonly [number, number, Record<string, number>]): string {
  let out = '';
  for (const ch of text) {
    const special = style[2][ch];
    const c = ch.charCodeAt(0);
    if (special !== undefined) out += String.fromCodePoint(special);
    else if (ch.length === 1 && c >= 65 && c <= 90) out += String.fromCodePoint(style[0] + c - 65);
    else if (ch.length === 1 && c >= 97 && c <= 122) out += String.fromCodePoint(style[1] + c - 97);
    else out += ch;
  }
  return out;
}

// make_accented_char: NFC of each code point followed by the combining mark.
function accented(n: MacroNode, ctx: TextCtx, mark: string): string {
  const first = n.legacyArgs !== null && n.legacyArgs.length > 0 ? n.legacyArgs[0] : undefined;
  const c = first !== undefined ? pyStrip(ctx.nodelistToText([first])) : ' ';
  let out = '';
  for (let ch of c) {
    if (ch === '\u0131') ch = 'i';
    if (ch === '\u0237') ch = 'j';
    out += (ch + mark).normalize('NFC');
  }
  return out;
}

function argText(n: MacroNode, ctx: TextCtx, k: number): string {
  return n.args !== null && n.args.length > 0 ? ctx.contents(n.args[k] ?? null) : '';
}

const SECTIONS: Record<string, (t: string) => string> = {
  part: (t) => `\n\nPART: ${t.toUpperCase()}\n`,
  chapter: (t) => `\n\nCHAPTER: ${t.toUpperCase()}\n`,
  section: (t) => `\n\n\u00a7 ${t.toUpperCase()}\n`,
  subsection: (t) => `\n\n \u00a7.\u00a7 ${t}\n`,
  subsubsection: (t) => `\n\n  \u00a7.\u00a7.\u00a7 ${t}\n`,
  paragraph: (t) => `\n\n  ${t}\n`,
  subparagraph: (t) => `\n\n    ${t}\n`,
};

function uebung(n: MacroNode, ctx: TextCtx): string {
  const a = n.legacyArgs ?? [];
  // `n.nodeargs[1]` raises IndexError when the arguments could not be parsed.
  if (a.length < 2) throw new Error('IndexError in \\exercise');
  let s = `\n${ctx.nodelistToText([a[0] ?? null])}\n`;
  const opt = a[1];
  if (opt !== null && opt !== undefined) s += `[${ctx.nodelistToText([opt])}]\n`;
  return s;
}

function metadata(n: MacroNode, ctx: TextCtx): string {
  if (n.args === null) throw new Error('AttributeError in document metadata macro');
  // The title text is computed (and may raise) even though nothing is printed.
  ctx.nodelistToText(n.args.slice(0, 1));
  return '';
}

/** Callable specs; an empty result is pylatexenc's "falsy -> ''". */
export const MACRO_HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ...Object.entries(ACCENTS).map(([name, mark]) => [name, (n: MacroNode, c: TextCtx) => accented(n, c, mark)] as [string, Handler]),
  ...Object.entries(STYLES).map(([name, st]) => [name, (n: MacroNode, c: TextCtx) => styled(argText(n, c, 0), st)] as [string, Handler]),
  ...Object.entries(SECTIONS).map(([name, f]) => [name, (n: MacroNode, c: TextCtx) => f(argText(n, c, 2))] as [string, Handler]),
  // \input/\include read files only with a tex input directory, which mathruler never sets.
  ['input', () => ''],
  ['include', () => ''],
  // \title, \author, \date store document metadata and print nothing
  // (reading `nodeargd.argnlist` raises when their argument is missing).
  ...['title', 'author', 'date'].map((name) => [name, metadata] as [string, Handler]),
  ['%', () => '%'],
  ['texorpdfstring', (n, c) => c.nodelistToText((n.legacyArgs ?? []).slice(1, 2))],
  ['item', (n, c) => `\n  ${n.optArg !== null ? c.nodelistToText([n.optArg]) : '* '}`],
  ['includegraphics', () => '\n    < g r a p h i c s >\n'],
  ['exercise', uebung],
  ['uebung', uebung],
  [
    'href',
    () => {
      // pylatexenc has no argspec for \href, so its formatter indexes an empty list.
      throw new Error('IndexError in \\href');
    },
  ],
]);
