// Node and token shapes of the pylatexenc 2.10 latexwalker port, plus the
// character classes it uses (Python `str.isspace` / `str.isalpha` per code point).
import { isPySpace } from '../../py/whitespace.ts';

/** A macro's parsed arguments: one entry per argspec char, null for an absent optional. */
export type ArgList = Array<LNode | null>;

/** One latexwalker node; `chars` is a code-point string. */
export type LNode =
  | { t: 'chars'; chars: string }
  | { t: 'group'; nodes: LNode[]; delims: readonly [string, string] }
  | { t: 'comment'; comment: string; postSpace: string }
  | {
      t: 'macro';
      name: string;
      postSpace: string;
      /** null when argument parsing failed (tolerant mode) or the node is a bare argument. */
      args: ArgList | null;
      /** pylatexenc's legacy `nodeoptarg` / `nodeargs` (nodeargs null for argument nodes). */
      optArg: LNode | null;
      legacyArgs: ArgList | null;
    }
  | { t: 'env'; name: string; nodes: LNode[]; args: ArgList | null }
  | { t: 'specials'; chars: string }
  | { t: 'math'; display: boolean; delims: readonly [string, string]; nodes: LNode[] };

/** A latexwalker token (`pos`/`len` in code points). */
export interface LToken {
  tok:
    | 'char'
    | 'macro'
    | 'comment'
    | 'brace_open'
    | 'brace_close'
    | 'mathmode_inline'
    | 'mathmode_display'
    | 'specials'
    | 'begin_environment'
    | 'end_environment';
  arg: string;
  pos: number;
  len: number;
  preSpace: string;
  postSpace: string;
}

/** pylatexenc LatexWalkerEndOfStream: input ended while reading a token. */
export class EndOfStream extends Error {
  readonly finalSpace: string;
  constructor(finalSpace: string) {
    super('end of stream');
    this.finalSpace = finalSpace;
  }
}

/** pylatexenc LatexWalkerParseError: swallowed by the tolerant parser at the node-list level. */
export class LatexParseError extends Error {}

/** Python `c.isspace()` for one code point. */
export function isSpaceCp(c: string | undefined): boolean {
  return c !== undefined && c.length === 1 && isPySpace(c.charCodeAt(0));
}

const ALPHA = /^\p{L}$/u;

/** Python `c.isalpha()` for one code point. */
export function isAlphaCp(c: string | undefined): boolean {
  return c !== undefined && ALPHA.test(c);
}

/** pylatexenc ParsedMacroArgs legacy attributes: (nodeoptarg, nodeargs) from an argspec. */
export function legacyArgs(argspec: string, args: ArgList): { optArg: LNode | null; rest: ArgList } {
  let skip = 0;
  while (argspec[skip] === '*') skip++;
  const tail = argspec.slice(skip);
  if (tail.startsWith('[') && [...tail.slice(1)].every((c) => c === '{')) {
    return { optArg: args[skip] ?? null, rest: args.slice(skip + 1) };
  }
  return { optArg: null, rest: args };
}
