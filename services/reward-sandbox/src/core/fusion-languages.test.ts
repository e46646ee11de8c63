import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUSION_LANGUAGES, TOOLCHAIN_PACKAGES, missingLanguages } from './fusion-languages.ts';

describe('missingLanguages', () => {
  it('lists every SandboxFusion language not running, with the apt command for its packages', () => {
    const missing = missingLanguages(new Set(FUSION_LANGUAGES.filter((l) => l !== 'lua' && l !== 'julia' && l !== 'jest')));
    expect(missing).toEqual([
      {
        language: 'lua',
        reason: 'toolchain not found under /usr (Debian: lua5.4, lua-unit)',
        install: 'apt-get install -y --no-install-recommends lua5.4 lua-unit',
      },
      { language: 'julia', reason: 'Debian 12 has no julia package', install: null },
      { language: 'jest', reason: 'npm packages of runtime/node-packages not installed', install: 'make deps' },
    ]);
    expect(missingLanguages(new Set(FUSION_LANGUAGES))).toEqual([]);
  });

  it('has an install command for every language but those no package provides', () => {
    const none = missingLanguages(new Set()).filter((m) => m.install === null);
    expect(none.map((m) => m.language).sort()).toEqual(['cuda', 'julia', 'lean', 'nodejs', 'python_gpu', 'swift', 'typescript']);
  });

  it("matches the root Makefile's SANDBOX_TOOLCHAIN_PACKAGES (make sandbox-toolchains installs exactly the table)", () => {
    const makefile = readFileSync(join(import.meta.dirname, '../../../../Makefile'), 'utf8');
    const line = makefile.split('\n').find((l) => l.startsWith('SANDBOX_TOOLCHAIN_PACKAGES :='));
    const listed = new Set(line?.split(':=')[1]?.trim().split(/\s+/));
    expect(listed).toEqual(new Set(Object.values(TOOLCHAIN_PACKAGES).flat()));
  });
});
