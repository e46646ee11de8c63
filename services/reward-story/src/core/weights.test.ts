import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPONENTS, DEFAULT_WEIGHTS } from './weights.ts';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The rows of the Markdown table whose header has `column`, as cells keyed by header. */
function tableWith(markdown: string, column: string): Array<Record<string, string>> {
  const lines = markdown.split('\n');
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const at = lines.findIndex((l) => l.startsWith('|') && cells(l).includes(column));
  if (at < 0) throw new Error(`no table with a "${column}" column`);
  const header = cells(lines[at]!);
  const rows: Array<Record<string, string>> = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(Object.fromEntries(cells(line).map((c, i) => [header[i], c])));
  }
  return rows;
}

describe('the README weight table', () => {
  it('lists every component in reporting order with its default weight', () => {
    const rows = tableWith(README, 'default weight');
    expect(rows.map((r) => r.component?.replaceAll('`', ''))).toEqual([...COMPONENTS]);
    for (const r of rows) expect(Number(r['default weight']), r.component).toBe(DEFAULT_WEIGHTS[r.component as keyof typeof DEFAULT_WEIGHTS]);
  });

  it('reads the cells of a table, and fails without one', () => {
    expect(tableWith('text\n| a | b |\n|---|---|\n| `x` | 1 |\n| y | 2.50 |\nafter\n| z | 3 |', 'b')).toEqual([
      { a: '`x`', b: '1' },
      { a: 'y', b: '2.50' },
    ]);
    expect(() => tableWith('| a |\n|---|\n| 1 |', 'b')).toThrow('no table with a "b" column');
  });
});
