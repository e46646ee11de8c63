// The Node languages with the npm packages of runtime/node-packages (make deps):
// nodejs and typescript programs import lodash & co. from a read-only bind,
// such programs leave the isolated-vm fast path, and `jest` runs a test file
// with SandboxFusion's outcomes (pass: return code 0; a failing test or a file
// that does not parse: a finished run with return code 1, no compile step).
// Without the package dir installed the package cases skip, and jest is an
// unsupported language rather than a broken one.

import { readFileSync } from 'node:fs';
import { BoundedQueue } from '@rl/service-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../core/executor.ts';
import { toRunCodeResponse } from '../../../core/fusion.ts';
import type { RunSpec } from '../../../core/runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';
import { canRunInIsolate } from '../../js-isolate/static-check.ts';
import { SlotPool } from '../slots/slot-pool.ts';

const runner = new BwrapRunner({ cgroups: false, nodePath: process.execPath, slots: new SlotPool({ size: 2, uidBase: 2_000_000_400 }) });
afterAll(() => runner.close());
const never = new AbortController().signal;
const run = (language: string, code: string, extra: Partial<RunSpec> = {}) =>
  runner.run(testRunSpec(language, code, { runTimeoutMs: 30_000, memoryLimitMb: 256, ...extra }), never);

const installed = runner.languages().includes('jest');
if (!installed) {
  console.warn('skipping the npm package and jest cases: services/reward-sandbox/runtime/node-packages is not installed (make deps, which runs npm ci there)');
}

describe.skipIf(!installed)('npm packages for nodejs and typescript', () => {
  it('requires and imports lodash from any directory', async () => {
    const cjs = await run('nodejs', 'const _ = require("lodash");\nconsole.log(_.chunk([1, 2, 3], 2));');
    expect(cjs.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '[ [ 1, 2 ], [ 3 ] ]\n' });
    // ESM resolution ignores NODE_PATH; /node_modules is on every directory's lookup path.
    const esm = await run(
      'nodejs',
      'import _ from "lodash";\nimport seedrandom from "seedrandom";\nprocess.chdir("/dev/shm");\nconsole.log(_.sum([1, 2]), typeof seedrandom);',
    );
    expect(esm.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '3 function\n' });
  }, 60_000);

  it('runs typescript through tsx, so named and namespace imports of CommonJS packages work as in SandboxFusion', async () => {
    const out = await run(
      'typescript',
      'import * as _ from "lodash";\nimport { chunk } from "lodash";\nimport md5 from "js-md5";\nconst n: number = 2;\nconsole.log(_.sum([1, n]), chunk([1, 2, 3], n), md5(""));',
    );
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '3 [ [ 1, 2 ], [ 3 ] ] d41d8cd98f00b204e9800998ecf8427e\n' });
  }, 60_000);

  it('cannot write to the packages', async () => {
    const lodash = `${runner.host.layout.nodePackagesHostPath ?? ''}/node_modules/lodash/lodash.js`;
    const before = readFileSync(lodash);
    const out = await run(
      'nodejs',
      [
        'const fs = require("fs");',
        'for (const p of [require.resolve("lodash"), "/node_modules/evil.js", "/opt/node-packages/jest.config.js", "/opt/node-packages/node_modules/lodash/evil.js"]) {',
        '  try { fs.writeFileSync(p, "x"); console.log("written " + p); } catch (e) { console.log(e.code); }',
        '}',
        'try { fs.unlinkSync("/node_modules"); console.log("removed"); } catch (e) { console.log(e.code); }',
      ].join('\n'),
    );
    expect(out.run_result?.stdout).toBe('EROFS\nEROFS\nEROFS\nEROFS\nEROFS\n');
    expect(readFileSync(lodash).equals(before)).toBe(true);
  }, 60_000);

  it('sends a program that requires a package to bubblewrap, not the isolate', () => {
    for (const [language, code] of [
      ['nodejs', 'const _ = require("lodash"); console.log(_.sum([1]));'],
      ['nodejs', 'import _ from "lodash"; console.log(_.sum([1]));'],
      ['typescript', 'import * as _ from "lodash"; console.log(_.sum([1]));'],
    ] as const) {
      expect(canRunInIsolate(testRunSpec(language, code))).toBe(false);
    }
    // The control: the same program without the package stays on the fast path.
    expect(canRunInIsolate(testRunSpec('nodejs', 'console.log([1].reduce((a, b) => a + b, 0));'))).toBe(true);
  });
});

// SandboxFusion's own jest tests (sandbox/tests/runners/test_jest.py) use this function, once right, once returning 0.
const minSubArrayLen = (body: string) => `import { describe, expect, test } from '@jest/globals';

function MinSubArrayLen(target: number, nums: number[]): number {
${body}
}

describe('MinSubArrayLen', () => {
  test('finds minimum length of a subarray with sum >= target', () => {
    expect(MinSubArrayLen(7, [2, 3, 1, 2, 4, 3])).toBe(2);
    expect(MinSubArrayLen(15, [1, 2, 3, 4, 5])).toBe(5);
  });
  test('returns 0 if no such subarray exists', () => {
    expect(MinSubArrayLen(100, [1, 2, 3, 4, 5])).toBe(0);
  });
});
`;
const RIGHT = `  let min = Infinity, sum = 0, start = 0;
  for (let end = 0; end < nums.length; end++) {
    sum += nums[end];
    while (sum >= target) { min = Math.min(min, end - start + 1); sum -= nums[start++]; }
  }
  return min === Infinity ? 0 : min;`;

describe.skipIf(!installed)('jest', () => {
  it('passes: return code 0, status Success, the report fetchable as jest-report.json', async () => {
    const out = await run('jest', minSubArrayLen(RIGHT), { fetchFiles: ['jest-report.json'] });
    expect(out.compile_result).toBeNull();
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(out.run_result?.stderr).toMatch(/^PASS \.\/tmp\w+\.test\.ts$/m);
    expect(out.run_result?.stderr).toContain('Tests:       2 passed, 2 total');
    expect(toRunCodeResponse(out).status).toBe('Success');
    const report = JSON.parse(Buffer.from(out.files['jest-report.json'] ?? '', 'base64').toString('utf8')) as { success: boolean; numPassedTests: number };
    expect(report).toMatchObject({ success: true, numPassedTests: 2 });
  }, 60_000);

  it('fails a wrong solution: finished, return code 1, status Failed', async () => {
    const out = await run('jest', minSubArrayLen('  return 0;'));
    expect(out.compile_result).toBeNull();
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 1 });
    expect(out.run_result?.stderr).toContain('Tests:       1 failed, 1 passed, 2 total');
    expect(toRunCodeResponse(out).status).toBe('Failed');
  }, 60_000);

  it('reports a file that does not parse as a failed suite in the run (no compile step), status Failed', async () => {
    const out = await run('jest', 'describe("x", () => { test("y", () => { expect(1).toBe(1) }); ));');
    expect(out.compile_result).toBeNull();
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 1 });
    expect(out.run_result?.stderr).toContain('Test suite failed to run');
    expect(toRunCodeResponse(out).status).toBe('Failed');
  }, 60_000);

  it('strips TypeScript types without checking them, and finds the packages and input files', async () => {
    const code =
      'import _ from "lodash";\nimport { half } from "./helper";\ntest("t", () => { const s: string = 5 as unknown as string; expect(_.sum([s as unknown as number, half(2)])).toBe(6); });';
    const out = await run('jest', code, { files: { 'helper.ts': Buffer.from('export const half = (n: number): number => n / 2;') } });
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
  }, 60_000);
});

describe('without the package dir', () => {
  const bare = new BwrapRunner({
    cgroups: false,
    nodePath: process.execPath,
    nodePackagesPath: '/nonexistent/node-packages',
    slots: new SlotPool({ size: 1, uidBase: 2_000_000_410 }),
  });
  afterAll(() => bare.close());

  it('offers nodejs and typescript but not jest, which is a 400 unsupported_language', async () => {
    expect(bare.languages()).toEqual(expect.arrayContaining(['nodejs', 'typescript']));
    expect(bare.languages()).not.toContain('jest');
    expect(bare.host.problems.join('\n')).toMatch(/node-packages.*make deps/);
    const executor = createExecutor(bare, new BoundedQueue({ concurrency: 1, maxQueued: 1 }));
    expect(executor.languages().map((l) => l.language)).not.toContain('jest');
    await expect(executor.run(testRunSpec('jest', 'test("t", () => {});'))).rejects.toMatchObject({ status: 400, code: 'unsupported_language' });
  });
});
