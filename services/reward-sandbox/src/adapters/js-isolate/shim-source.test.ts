import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { SHIM_SOURCE, toFragment } from './shim-source.ts';

describe('runtime assembly', () => {
  it('yields one plain script: no import or export survives the stripping', () => {
    // sourceType 'script' rejects import/export anywhere, so a runtime file that
    // strays from the shapes toFragment strips fails here rather than in an isolate.
    expect(() => parse(SHIM_SOURCE, { ecmaVersion: 'latest', sourceType: 'script' })).not.toThrow();
    expect(SHIM_SOURCE.endsWith('return ctl;\n})()')).toBe(true);
  });

  it('strips single- and multi-line imports and export keywords only at line start', () => {
    const text =
      "import { a } from './a.js';\nimport {\n  b, c,\n} from './b.js';\nexport function f() { return 'export const x'; }\nexport const y = 1, z = 2;\n";
    expect(toFragment(text)).toBe("function f() { return 'export const x'; }\nconst y = 1, z = 2;\n");
  });
});
