// Every language of the table against real bubblewrap sandboxes: hello world,
// stdin, a runtime error's exit code and, for compiled languages, a compile
// error shaped as SandboxFusion reports it (compile_result set, no run_result).
// A language whose toolchain is not installed is skipped with its package name.

import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../../core/runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';
import { PROGRAMS } from './testing/programs.ts';

const runner = new BwrapRunner({ cgroups: false, nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;
const run = (language: string, code: string, extra: Partial<RunSpec> = {}) =>
  runner.run(testRunSpec(language, code, { compileTimeoutMs: 30_000, runTimeoutMs: 10_000, memoryLimitMb: 256, ...extra }), never);

for (const [language, p] of Object.entries(PROGRAMS)) {
  const installed = runner.languages().includes(language);
  if (!installed) console.warn(`skipping ${language}: toolchain not installed (${p.install ?? `apt-get install ${p.toolchain}`})`);
  describe.skipIf(!installed)(`${language} (needs ${p.toolchain})`, () => {
    it('prints hello world', async () => {
      const out = await run(language, p.hello);
      expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello\n' });
      if (p.compileError !== undefined) expect(out.compile_result).toMatchObject({ status: 'Finished', return_code: 0 });
      else expect(out.compile_result).toBeNull();
    }, 60_000);

    it('reads stdin', async () => {
      const out = await run(language, p.echo, { stdin: 'a\nb\n' });
      expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'a\nb\n' });
    }, 60_000);

    it('reports a runtime error by its exit code', async () => {
      const out = await run(language, p.exit3);
      expect(out.run_result?.status).toBe('Finished');
      expect(out.run_result?.return_code).toBe(p.exitCode ?? 3);
    }, 60_000);

    it.skipIf(p.compileError === undefined)(
      'reports a compile error without running anything',
      async () => {
        const out = await run(language, p.compileError ?? '');
        expect(out.compile_result?.status).toBe('Finished');
        expect(out.compile_result?.return_code).not.toBe(0);
        expect(out.compile_result?.stderr).not.toBe('');
        expect(out.run_result).toBeNull();
      },
      60_000,
    );
  });
}
