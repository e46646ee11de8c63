import { describe, expect, it } from 'vitest';
import type { RunSpec } from '../../core/runner.ts';
import { canRunInIsolate, usesOnlyIsolateApis } from './static-check.ts';
import { testRunSpec } from '../../core/testing/run-spec.ts';

const spec = (code: string, extra: Partial<RunSpec> = {}): RunSpec => testRunSpec('nodejs', code, extra);

describe('canRunInIsolate', () => {
  it('accepts typical competitive-programming and benchmark programs', () => {
    const accepted = [
      'console.log("hello")',
      "const lines = require('fs').readFileSync(0, 'utf8').trim().split('\\n');\nconsole.log(lines.length);",
      "const fs = require('node:fs');\nconst data = fs.readFileSync('/dev/stdin').toString();\nfs.writeSync(1, data);",
      "const { readFileSync } = require('fs');\nconsole.log(readFileSync(0, 'utf8'));",
      "const readline = require('readline');\nconst rl = readline.createInterface({ input: process.stdin, output: process.stdout });\nrl.on('line', (l) => console.log(l));",
      "const assert = require('node:assert');\nfunction test() { assert.deepEqual([1], [1]); assert(true); }\ntest();",
      "process.stdin.on('data', (d) => { console.log(String(d)); process.exit(0); });",
      "import * as readline from 'node:readline';\nimport { stdin as input, stdout as output } from 'node:process';\nconst rl = readline.createInterface({ input, output });",
      "import assert from 'assert';\nassert.strictEqual(1, 1);",
      "const EventEmitter = require('events');\nclass E extends EventEmitter {}\nnew E();",
      "const util = require('util');\nconst sleep = util.promisify(setTimeout);\nsleep(1).then(() => console.log(util.inspect({ a: 1 })));",
      '// process.binding is mentioned only in a comment\nconst s = "require(\'child_process\')"; console.log(s);',
      'if (require.main === module) { console.log(module.exports); }',
      'const re = /process\\.binding/; console.log(`${1 + 1} fetch`, re.test("x"));',
      '#!/usr/bin/env node\nconsole.log(require("os").EOL.length)',
    ];
    for (const code of accepted) expect(canRunInIsolate(spec(code)), code).toBe(true);
  });

  it('accepts TypeScript after stripping types (type names do not count as uses)', () => {
    const code =
      "declare var require: any;\nconst assert = require('node:assert');\nfunction f(b: Buffer | null): number { return 1; }\nassert.equal(f(null), 1);";
    expect(canRunInIsolate(spec(code, { language: 'typescript' }))).toBe(true);
  });

  it('rejects code that needs Node built-ins the isolate lacks', () => {
    const rejected = [
      "require('child_process').execSync('ls')",
      "const http = require('http');",
      "import { Worker } from 'worker_threads';",
      "const net = require('node:net');",
      "const m = 'fs'; require(m);",
      "require.resolve('fs')",
      "import('fs').then(console.log)",
      "export { x } from 'fs';",
      "console.log(process.binding('fs'))",
      'console.log(globalThis.process.memoryUsage())',
      'const p = process; p.dlopen();',
      "const buf = Buffer.from('abc');",
      "fetch('http://example.com')",
      "new TextEncoder().encode('x')",
      'console.log(structuredClone({}))',
      "const fs = require('fs'); fs.readdirSync('.')",
      "const { promises } = require('fs');",
      "const fs = require('fs'); const f = fs; f.rmSync('x');",
      'console.table([1, 2])',
      "eval('1 + 1')",
      'console.log(import.meta.url)',
      "const x = require('./local.js');",
    ];
    for (const code of rejected) expect(usesOnlyIsolateApis(code), code).toBe(false);
  });

  it('reads the program as a parser does, so no lexical trick hides a Node API', () => {
    const rejected = [
      // A regex literal after `)` that a character scan takes for a division: its
      // quote then opens a "string" running to the comment, over the require.
      `if (1) /'/.test("x"); require("child_process").execSync("ls"); // '`,
      "proc\\u0065ss.binding('fs')",
      "\\u0042uffer.from('x')",
      "globalThis.Buffer.from('x')",
      "global['process'].binding('fs')",
      'const { Buffer } = globalThis;',
      "console['table']([1])",
      "{ let Buffer = 1; } Buffer.from('a')",
      "const r = require; r('child_process')",
      "const s = 'a'; console.log(`${s} ${require('child_process').execSync('ls')}`)",
    ];
    for (const code of rejected) expect(usesOnlyIsolateApis(code), code).toBe(false);
  });

  it("treats the program's own declarations of Node names as its own", () => {
    const accepted = [
      'function run(process) { return process.binding; }\nconsole.log(run({ binding: 1 }));',
      "const fetch = (u) => u; console.log(fetch('x'));",
      "const fs = require('fs'); { const fs = { rmSync() {} }; fs.rmSync('x'); }",
      "function require(x) { return x; } console.log(require('child_process'));",
      'try { throw 1; } catch (Buffer) { console.log(Buffer); }',
      'const o = { Buffer: 1, process: 2 }; console.log(o.Buffer + o.process);',
      'class A { fetch() { return 1; } } console.log(new A().fetch());',
      'function F() { return new.target; } F();',
      "console.log(require('fs')['readFileSync'](0, 'utf8'));",
      'const s = "import(\'fs\')"; console.log(s);',
    ];
    for (const code of accepted) expect(usesOnlyIsolateApis(code), code).toBe(true);
  });

  it('keeps syntax errors where they went before the parser: the isolate reports them, except unterminated tokens', () => {
    expect(usesOnlyIsolateApis('let x = ;')).toBe(true);
    expect(usesOnlyIsolateApis('function f() {')).toBe(true);
    expect(usesOnlyIsolateApis('console.log("unterminated)')).toBe(false);
    expect(usesOnlyIsolateApis('/* open comment')).toBe(false);
    // Possibly an ES module: only real Node can tell.
    expect(usesOnlyIsolateApis("import fs from 'fs'; let x = ;")).toBe(false);
  });

  it('rejects runs with files, fetchFiles or other languages', () => {
    expect(canRunInIsolate(spec('console.log(1)', { files: { 'a.txt': null } }))).toBe(false);
    expect(canRunInIsolate(spec('console.log(1)', { fetchFiles: ['out.txt'] }))).toBe(false);
    expect(canRunInIsolate(spec('print(1)', { language: 'python' }))).toBe(false);
  });

  it('leaves TypeScript that does not parse to the native runner', () => {
    expect(canRunInIsolate(spec('let x: number = ;', { language: 'typescript' }))).toBe(false);
  });
});
