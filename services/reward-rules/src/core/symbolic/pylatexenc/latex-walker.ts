// pylatexenc 2.10 LatexWalker.get_latex_nodes with tolerant_parsing=True (its
// default): stray closing braces and bad \end are dropped, unterminated groups
// end at the end of input, macros whose arguments run off the end keep none.
import { ENV_ARGSPECS, MACRO_ARGSPECS, MATH_ENVS } from './latex-specs.ts';
import { type ArgList, EndOfStream, LatexParseError, type LNode, legacyArgs } from './latex-nodes.ts';
import { getToken, type MathState } from './latex-tokens.ts';
import { parseArgs, parseVerbatimEnv, parseVerbMacro } from './latex-args.ts';

/** Where a node list stops; `end` is the position after its last token. */
interface Stop {
  brace?: readonly [string, string];
  env?: string;
  math?: string;
}

// CPython's recursion limit makes pylatexenc fail (and mathruler keep the raw
// string) a little above 200 nested groups; we refuse at the same order of size.
const MAX_DEPTH = 200;

/** Parses a whole string as pylatexenc's `LatexWalker(s).get_latex_nodes()`. */
export function parseLatex(s: string): LNode[] {
  return new Walker([...s]).nodes(0, {}, { inMath: false, delimiter: null }).nodes;
}

/** The walker; also the `w` handed to argument parsers. */
export class Walker {
  readonly cs: readonly string[];
  private depth = 0;

  constructor(cs: readonly string[]) {
    this.cs = cs;
  }

  /** LatexWalker.get_latex_braced_group at a known opening brace. */
  group(pos: number, open: string, close: string, state: MathState): { node: LNode; end: number } {
    const extra = open === '{' ? [] : [[open, close] as const];
    const first = getToken(this.cs, pos, extra, true, state);
    if (first.tok !== 'brace_open' || first.arg !== open) throw new LatexParseError('not a brace');
    const inner = this.nodes(first.pos + first.len, { brace: [open, close] }, state);
    return { node: { t: 'group', nodes: inner.nodes, delims: [open, close] }, end: inner.end };
  }

  /** LatexWalker.get_latex_nodes. */
  nodes(pos: number, stop: Stop, state: MathState): { nodes: LNode[]; end: number } {
    if (++this.depth > MAX_DEPTH) throw new Error('latex nesting too deep');
    try {
      return this.readAll(pos, stop, state);
    } finally {
      this.depth--;
    }
  }

  private readAll(start: number, stop: Stop, state: MathState): { nodes: LNode[]; end: number } {
    const out: LNode[] = [];
    const extra = stop.brace !== undefined && stop.brace[1] !== '}' ? [stop.brace] : [];
    let p = start;
    let chars = '';
    const flush = (suffix: string): void => {
      if (chars.length > 0) out.push({ t: 'chars', chars: chars + suffix });
      else if (suffix.length > 0) out.push({ t: 'chars', chars: suffix });
      chars = '';
    };
    for (;;) {
      let t: ReturnType<typeof getToken>;
      try {
        t = getToken(this.cs, p, extra, true, state);
      } catch (e) {
        if (!(e instanceof EndOfStream)) throw e;
        chars += e.finalSpace;
        if (chars.length > 0) out.push({ t: 'chars', chars });
        return { nodes: out, end: this.cs.length };
      }
      p = t.pos + t.len;
      if (t.tok === 'char') {
        chars += t.preSpace + t.arg;
        continue;
      }
      flush(t.preSpace);
      if (t.tok === 'brace_close') {
        // A mismatched closing brace is a parse error, dropped in tolerant mode.
        if (stop.brace !== undefined && t.arg === stop.brace[1]) return { nodes: out, end: p };
        continue;
      }
      if (t.tok === 'end_environment') {
        if (stop.env !== undefined && t.arg === stop.env) return { nodes: out, end: p };
        continue;
      }
      if (t.tok === 'mathmode_inline' || t.tok === 'mathmode_display') {
        if (stop.math !== undefined && t.arg === stop.math) return { nodes: out, end: p };
        if (t.arg === '\\)' || t.arg === '\\]') continue;
        const close = t.arg === '\\(' ? '\\)' : t.arg === '\\[' ? '\\]' : t.arg;
        const inner = this.nodes(p, { math: close }, { inMath: true, delimiter: t.arg });
        p = inner.end;
        const display = !(t.arg === '\\(' || t.arg === '$');
        out.push({ t: 'math', display, delims: [t.arg, close], nodes: inner.nodes });
        continue;
      }
      if (t.tok === 'comment') {
        out.push({ t: 'comment', comment: t.arg, postSpace: t.postSpace });
      } else if (t.tok === 'brace_open') {
        const g = this.group(t.pos, t.arg, t.arg === '{' ? '}' : ']', state);
        p = g.end;
        out.push(g.node);
      } else if (t.tok === 'begin_environment') {
        const env = this.environment(p, t.arg, state);
        p = env.end;
        out.push(env.node);
      } else if (t.tok === 'macro') {
        const m = this.macroArgs(t.arg, p, state);
        const legacy = m.args === null ? { optArg: null, rest: [] } : legacyArgs(m.spec, m.args);
        out.push({ t: 'macro', name: t.arg, postSpace: t.postSpace, args: m.args, optArg: legacy.optArg, legacyArgs: legacy.rest });
        p = m.end;
      } else {
        out.push({ t: 'specials', chars: t.arg });
      }
    }
  }

  private macroArgs(name: string, pos: number, state: MathState): { args: ArgList | null; spec: string; end: number } {
    try {
      if (name === 'verb') {
        const r = parseVerbMacro(this.cs, pos);
        return { args: [r.node], spec: '{', end: r.end };
      }
      const spec = MACRO_ARGSPECS.get(name) ?? (name === '\\' ? '*[' : '');
      const r = parseArgs(this, spec, pos, state, name === '\\');
      return { args: r.args, spec, end: r.end };
    } catch (e) {
      // Tolerant mode: the macro keeps no arguments and parsing resumes after its name.
      if (e instanceof EndOfStream || e instanceof LatexParseError) return { args: null, spec: '', end: pos };
      throw e;
    }
  }

  private environment(pos: number, name: string, state: MathState): { node: LNode; end: number } {
    let args: ArgList | null = null;
    let p = pos;
    try {
      const r = name === 'verbatim' ? parseVerbatimEnv(this.cs, pos) : parseArgs(this, ENV_ARGSPECS.get(name) ?? '', pos, state, false);
      args = r.args;
      p = r.end;
    } catch (e) {
      if (!(e instanceof EndOfStream || e instanceof LatexParseError)) throw e;
    }
    const inner = MATH_ENVS.has(name) ? { inMath: true, delimiter: `{${name}}` } : state;
    const body = this.nodes(p, { env: name }, inner);
    return { node: { t: 'env', name, nodes: body.nodes, args }, end: body.end };
  }
}
