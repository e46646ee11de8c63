// Every relative link in the repository's Markdown resolves in a clean checkout:
// a README that points outside the repository (or at a file that moved) fails here.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.ts';

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !f.includes('node_modules/') && existsSync(join(ROOT, f)));

/** `[text](target)` targets outside code spans and fenced blocks. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // URL or in-page anchor
    out.push(decodeURI(target.split('#')[0]!));
  }
  return out;
}

describe('Markdown links', () => {
  it('finds the Markdown files', () => {
    expect(files).toContain('README.md');
  });

  it('finds links in prose and skips code, URLs and anchors', () => {
    expect(relativeLinks('[a](x.md) `[b](y.md)` [c](https://e.org) [d](#top) [e](dir/f.md#sec)\n```\n[g](z.md)\n```')).toEqual(['x.md', 'dir/f.md']);
  });

  it.each(files)('%s: every relative link resolves inside the repository', (file) => {
    const broken = relativeLinks(readFileSync(join(ROOT, file), 'utf8')).filter((target) => {
      const path = join(ROOT, dirname(file), target);
      return !path.startsWith(ROOT + '/') || !existsSync(path);
    });
    expect(broken).toEqual([]);
  });
});
