// pylatexenc 2.10 `LatexNodes2Text().latex_to_text(s)` with its defaults
// (math_mode='text', strict_latex_spaces='macros', no comments, no fill), as
// mathruler's _parse_latex calls it. Throws where pylatexenc raises.
import { pyStrip } from '../../py/whitespace.ts';
import { applyPercentFormat } from './latex-format.ts';
import { JOIN_ARGS, MACRO_FORMATS, MACRO_HANDLERS, type TextCtx } from './latex-macros.ts';
import type { LNode } from './latex-nodes.ts';
import { SPECIALS_TEXT } from './latex-specs.ts';
import { FIXED_MACRO_TEXT } from './latex-symbols.ts';
import { parseLatex } from './latex-walker.ts';

const EQUATION_ENVS = new Set('equation equation* eqnarray eqnarray* align multline gather align* multline* gather* dmath dmath*'.split(' '));
const MATRIX_ENVS = new Set('array pmatrix bmatrix smallmatrix psmallmatrix bsmallmatrix'.split(' '));
const BLOCK_ENVS = new Set(['center', 'flushleft', 'flushright']);

/** _fmt_indented_block with the default 4-space indent (fill_text off). */
function indentedBlock(contents: string): string {
  return `\n    ${contents.replaceAll('\n', '\n    ')}\n`;
}

function padStart(s: string, width: number): string {
  const len = [...s].length;
  return len >= width ? s : ' '.repeat(width - len) + s;
}

class Converter implements TextCtx {
  // strict_latex_spaces 'macros' outside equations; 'based-on-source' inside them.
  private strict = true;

  nodelistToText(nodes: ReadonlyArray<LNode | null>): string {
    let s = '';
    let prev: LNode | null = null;
    for (const node of nodes) {
      if (
        !this.strict &&
        prev !== null &&
        prev.t === 'macro' &&
        prev.optArg === null &&
        prev.legacyArgs !== null &&
        prev.legacyArgs.length === 0 &&
        node?.t === 'chars'
      ) {
        s += prev.postSpace;
      }
      s += this.nodeToText(node);
      prev = node;
    }
    return s;
  }

  contents(node: LNode | null): string {
    if (node === null) return '';
    return node.t === 'group' ? this.nodelistToText(node.nodes) : this.nodeToText(node);
  }

  private nodeToText(node: LNode | null): string {
    if (node === null) return '';
    switch (node.t) {
      case 'chars':
        return !this.strict && pyStrip(node.chars).length === 0 ? '' : node.chars;
      case 'comment':
        return node.postSpace;
      case 'group':
        return this.nodelistToText(node.nodes);
      case 'macro':
        return this.macroToText(node);
      case 'env':
        return this.envToText(node);
      case 'specials':
        return SPECIALS_TEXT.get(node.chars) ?? node.chars;
      case 'math':
        return this.mathToText(node.nodes, node.display);
    }
  }

  private macroToText(node: Extract<LNode, { t: 'macro' }>): string {
    const handler = MACRO_HANDLERS.get(node.name);
    if (handler !== undefined) return handler(node, this);
    const fmt = MACRO_FORMATS.get(node.name);
    if (fmt !== undefined)
      return applyPercentFormat(
        fmt,
        (node.args ?? []).map((a) => this.contents(a)),
      );
    const fixed = FIXED_MACRO_TEXT.get(node.name);
    if (fixed !== undefined) return fixed;
    if (JOIN_ARGS.has(node.name)) return (node.args ?? []).map((a) => this.contents(a)).join('');
    // Unknown macros are discarded (MacroTextSpec('', discard=True)).
    return '';
  }

  private envToText(node: Extract<LNode, { t: 'env' }>): string {
    if (EQUATION_ENVS.has(node.name)) return this.mathToText(node.nodes, true);
    if (MATRIX_ENVS.has(node.name)) return this.matrix(node.nodes);
    if (BLOCK_ENVS.has(node.name)) return applyPercentFormat('\n%s\n', [this.nodelistToText(node.nodes)]);
    return this.nodelistToText(node.nodes);
  }

  private mathToText(nodes: LNode[], block: boolean): string {
    const saved = this.strict;
    this.strict = false;
    let content: string;
    try {
      content = pyStrip(this.nodelistToText(nodes));
    } finally {
      this.strict = saved;
    }
    return block ? indentedBlock(content) : content;
  }

  // fmt_matrix_environment_node: cells split on `&`, rows on `\\`, right-aligned.
  private matrix(nodes: LNode[]): string {
    const rows: string[][] = [];
    let row: string[] = [];
    let cell: LNode[] = [];
    const endCell = (): void => {
      if (cell.length > 0) row.push(pyStrip(this.nodelistToText(cell)));
      cell = [];
    };
    const endRow = (): void => {
      endCell();
      rows.push(row);
      row = [];
    };
    for (const n of nodes) {
      if (n.t === 'specials' && n.chars === '&') endCell();
      else if (n.t === 'macro' && n.name === '\\') endRow();
      else cell.push(n);
    }
    endRow();
    const cells = rows.flat();
    // max() of an empty sequence is a ValueError.
    if (cells.length === 0) throw new Error('ValueError: empty matrix');
    const width = Math.max(...cells.map((c) => [...c].length));
    return `[ ${rows.map((r) => r.map((c) => padStart(c, width)).join(' ')).join('; ')} ]`;
  }
}

/** pylatexenc LatexNodes2Text().latex_to_text(s); throws where pylatexenc raises. */
export function latexToText(s: string): string {
  return new Converter().nodelistToText(parseLatex(s));
}
