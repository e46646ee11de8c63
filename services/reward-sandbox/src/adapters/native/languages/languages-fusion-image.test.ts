// What SandboxFusion's image gives programs beyond the bare toolchains, on the
// bubblewrap runner: Go libraries (testify) in GOPATH mode, javatuples on
// java's class path, luaunit, perl's Test::Deep and Data::Compare, C# as
// dotnet's console project builds it, and a writable /mnt for fetch_files.
// Each skips when its Debian package is absent (make sandbox-toolchains).

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../../core/runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';

const runner = new BwrapRunner({ cgroups: false, nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;
// Limits far past need on a loaded 2-core host: these check behaviour, not speed.
const run = (language: string, code: string, extra: Partial<RunSpec> = {}) =>
  runner.run(testRunSpec(language, code, { compileTimeoutMs: 60_000, runTimeoutMs: 60_000, memoryLimitMb: 512, ...extra }), never);
const has = (language: string, ...paths: string[]) => runner.languages().includes(language) && paths.every((p) => existsSync(p));

describe.skipIf(!has('go_test', '/usr/share/gocode/src/github.com/stretchr/testify'))('go_test with testify', () => {
  it('resolves github.com/stretchr/testify/assert from Debian’s Go libraries; a failed assertion fails the test', async () => {
    const code = (want: number) =>
      `package main\nimport (\n"testing"\n"github.com/stretchr/testify/assert"\n)\nfunc TestAdd(t *testing.T) { assert.Equal(t, ${want}, 1+1) }`;
    const pass = await run('go_test', code(2));
    expect(pass.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    const fail = await run('go_test', code(3));
    expect(fail.run_result?.return_code).toBe(1);
    expect(fail.run_result?.stdout).toContain('Not equal');
  }, 180_000);
});

describe.skipIf(!has('java', '/usr/share/java/javatuples.jar'))('java with javatuples', () => {
  it('compiles and runs against org.javatuples as SandboxFusion bundles it', async () => {
    const out = await run(
      'java',
      'import org.javatuples.Pair;\npublic class Main { public static void main(String[] a) { System.out.println(Pair.with("x", 1).getValue1()); } }',
    );
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '1\n' });
  }, 120_000);
});

describe.skipIf(!has('lua', '/usr/share/lua/5.4/luaunit.lua'))('lua with luaunit', () => {
  it('requires luaunit; a failed assertion exits non-zero', async () => {
    expect((await run('lua', "lu = require('luaunit')\nlu.assertEquals(0, 0)")).run_result?.return_code).toBe(0);
    const fail = await run('lua', "lu = require('luaunit')\nlu.assertEquals(1, 2)");
    expect(fail.run_result?.return_code).not.toBe(0);
    expect(fail.run_result?.stderr).toContain('LuaUnit test FAILURE');
  }, 60_000);
});

describe.skipIf(!has('perl', '/usr/share/perl5/Test/Deep.pm', '/usr/share/perl5/Data/Compare.pm'))('perl modules', () => {
  it('loads Test::Deep and Data::Compare', async () => {
    const out = await run('perl', 'use Test::Deep;\nuse Data::Compare;\nprint eq_deeply([1, {a => 2}], [1, {a => 2}]) && Compare(1, 1) ? "ok\\n" : "no\\n";');
    expect(out.run_result).toMatchObject({ return_code: 0, stdout: 'ok\n' });
  }, 60_000);
});

describe.skipIf(!has('csharp'))('csharp as dotnet builds it', () => {
  it('has the console template’s implicit usings, and compiler messages keep the code’s line numbers', async () => {
    const ok = await run('csharp', 'public class Program {\n  public static void Main() { var l = new List<int> { 1, 2 }; Console.WriteLine(l.Sum()); }\n}');
    expect(ok.run_result).toMatchObject({ return_code: 0, stdout: '3\n' });
    const bad = await run('csharp', 'public class Program {\n  public static void Main() { int x = "s"; }\n}');
    expect(`${bad.compile_result?.stdout}${bad.compile_result?.stderr}`).toMatch(/Program\.cs\(2,\d+\): error CS0029/);
  }, 120_000);

  it('ends the process on a failed Debug.Assert, as .NET does; a true one and Main’s own exit code pass through', async () => {
    const assert = (cond: string) =>
      `using System.Diagnostics;\npublic class Program { public static void Main() { Debug.Assert(${cond}, "Assertion failed"); Console.WriteLine("after"); } }`;
    const fail = await run('csharp', assert('1 == 2'));
    expect(fail.run_result).toMatchObject({ status: 'Finished', return_code: -6, stdout: '' }); // exit 134: SIGABRT's status
    expect(fail.run_result?.stderr).toContain('Process terminated. Assertion failed.\nAssertion failed\n');
    expect((await run('csharp', assert('1 == 1'))).run_result).toMatchObject({ return_code: 0, stdout: 'after\n' });
    const code = await run('csharp', 'class P { static async Task<int> Main() { await Task.Yield(); return 7; } }');
    expect(code.run_result?.return_code).toBe(7);
  }, 180_000);
});

describe('writable /mnt', () => {
  it('lets a program write /mnt/b and fetch_files return it', async () => {
    const out = await run('bash', 'echo -n sauce > /mnt/b', { fetchFiles: ['/mnt/b'] });
    expect(out.run_result?.return_code).toBe(0);
    expect(out.files).toEqual({ '/mnt/b': btoa('sauce') });
  });
});
