import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAIN_SEMI_SPACE_MB, semiSpaceReexec } from './main-thread-heap.ts';

describe('semiSpaceReexec', () => {
  const argv = ['/usr/bin/node', '/srv/src/main.ts'];

  it('re-executes with the default semi-space, keeping the original flags and arguments', () => {
    expect(semiSpaceReexec(['--enable-source-maps'], argv, {})).toEqual([
      '/usr/bin/node',
      `--max-semi-space-size=${DEFAULT_MAIN_SEMI_SPACE_MB}`,
      '--enable-source-maps',
      '/srv/src/main.ts',
    ]);
    expect(semiSpaceReexec([], argv, { MAIN_SEMI_SPACE_MB: '16' })).toEqual(['/usr/bin/node', '--max-semi-space-size=16', '/srv/src/main.ts']);
  });

  it('leaves the process alone when the flag is already given, when disabled, or when the value is not an integer', () => {
    expect(semiSpaceReexec(['--max-semi-space-size=8'], argv, {})).toBeUndefined();
    expect(semiSpaceReexec([], argv, { NODE_OPTIONS: '--max-semi-space-size=8' })).toBeUndefined();
    expect(semiSpaceReexec([], argv, { MAIN_SEMI_SPACE_MB: '0' })).toBeUndefined();
    // Invalid values are left to loadConfig, which rejects them as invalid configuration.
    expect(semiSpaceReexec([], argv, { MAIN_SEMI_SPACE_MB: 'big' })).toBeUndefined();
  });
});

describe("the main thread's modules", () => {
  it('do not load the scorers or mathjs (they live in the scoring workers)', () => {
    // main.ts's run-time imports, loaded in a child process that records every module it resolves.
    const mainTs = readFileSync(new URL('./main.ts', import.meta.url), 'utf8');
    const specs = [...mainTs.matchAll(/^import (?!type )(?:[^'"]*? from )?'([^']+)'/gm)].map((m) => m[1]!);
    expect(specs).toContain('./score-service.ts');
    const fromMain = createRequire(new URL('./main.ts', import.meta.url));
    const urls = specs.map((s) => (s.startsWith('.') ? new URL(s, import.meta.url).href : pathToFileURL(fromMain.resolve(s)).href));
    const script = [
      "import { registerHooks } from 'node:module';",
      'const seen = [];',
      'registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.push(r.url); return r; } });',
      `for (const u of ${JSON.stringify(urls)}) await import(u);`,
      'console.log(JSON.stringify(seen));',
    ].join('\n');
    const dir = mkdtempSync(join(tmpdir(), 'rules-main-'));
    const file = join(dir, 'load.mjs');
    writeFileSync(file, script);
    const out = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(out.stderr).toBe('');
    const loaded = JSON.parse(out.stdout) as string[];
    expect(loaded.some((u) => u.includes('/score-service.ts'))).toBe(true);
    expect(loaded.filter((u) => /\/mathjs\/|\/core\/(registry|score-batch|scorers\/|symbolic\/)/.test(u))).toEqual([]);
  });
});
