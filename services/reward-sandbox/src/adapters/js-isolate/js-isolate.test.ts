import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../core/runner.ts';
import { clampMemory } from './index.ts';
import { testIsolateRunner } from './testing/runner.ts';
import { ISOLATE_MODULES } from './modules.ts';
import { testRunSpec } from '../../core/testing/run-spec.ts';

const runner = testIsolateRunner({ spareWorkers: 1 });
afterAll(() => runner.close());

// Programs that end on their own get a limit far past their needs (a loaded host);
// the tests about the limit set their own.
const spec = (code: string, extra: Partial<RunSpec> = {}): RunSpec => testRunSpec('nodejs', code, { runTimeoutMs: 20_000, ...extra });

async function run(code: string, extra: Partial<RunSpec> = {}) {
  const outcome = await runner.run(spec(code, extra), new AbortController().signal);
  expect(outcome.compile_result).toBeNull();
  const result = outcome.run_result;
  if (result === null) throw new Error('no run_result');
  return { ...result, notes: outcome.notes };
}

describe('IsolateRunner basics', () => {
  it('reports its name and languages', () => {
    expect(runner.name).toBe('isolated-vm');
    expect(runner.languages()).toEqual(['nodejs', 'typescript']);
  });

  it('runs hello world in nodejs', async () => {
    const r = await run('console.log("hello world")');
    expect(r).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello world\n', stderr: '' });
    expect(r.execution_time).toBeGreaterThan(0);
    expect(r.execution_time).toBeLessThan(5);
  });

  it('runs hello world in typescript, without type checking', async () => {
    const r = await run('const greeting: string = "hello";\nconst n: number = "not a number" as any;\nconsole.log(greeting, n);', {
      language: 'typescript',
    });
    expect(r).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello not a number\n' });
  });

  it('transforms TypeScript-only syntax such as enums', async () => {
    const r = await run(
      'enum Color { Red, Green }\nclass P { constructor(private x: number) {}\n get() { return this.x } }\nconsole.log(Color.Green, new P(7).get());',
      {
        language: 'typescript',
      },
    );
    expect(r.stdout).toBe('1 7\n');
  });

  it('quotes the TypeScript source line when a TypeScript program throws', async () => {
    const r = await run('function f(x: number): never {\n  throw new RangeError(`bad ${x}`);\n}\nf(1);', { language: 'typescript' });
    expect(r.return_code).toBe(1);
    expect(r.stderr).toContain('/sandbox/main.ts:2\n  throw new RangeError(`bad ${x}`);\n');
    expect(r.stderr).toContain('RangeError: bad 1\n    at f (/sandbox/main.ts:2:9)');
  });

  it('reports TypeScript syntax errors on stderr with exit code 1', async () => {
    const r = await run('const a = 1;\nlet x: number = ;\n', { language: 'typescript' });
    expect(r.status).toBe('Finished');
    expect(r.return_code).toBe(1);
    expect(r.stderr).toContain('/sandbox/main.ts:2');
    expect(r.stderr).toContain('SyntaxError');
  });

  it('reports JavaScript syntax errors like node', async () => {
    const r = await run('let x = ;');
    expect(r.return_code).toBe(1);
    expect(r.stderr).toMatch(/^\/sandbox\/main\.js:1\nlet x = ;\n {8}\^\n\nSyntaxError: Unexpected token ';'/);
  });
});

describe('stdin', () => {
  it('reads stdin with fs.readFileSync(0)', async () => {
    const r = await run('const s = require("fs").readFileSync(0, "utf8"); console.log(s.split(" ").map(Number).reduce((a, b) => a + b));', {
      stdin: '1 2 39',
    });
    expect(r.stdout).toBe('42\n');
  });

  it("reads stdin with readFileSync('/dev/stdin') as a Buffer-like", async () => {
    const r = await run('const b = require("fs").readFileSync("/dev/stdin"); console.log(b.length, b.toString().trim());', {
      stdin: 'héllo\n',
    });
    expect(r.stdout).toBe('7 héllo\n');
  });

  it('reads stdin line by line with readline', async () => {
    const code = `
      const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
      const lines = [];
      rl.on('line', (line) => lines.push(line));
      rl.on('close', () => console.log(JSON.stringify(lines)));`;
    const r = await run(code, { stdin: 'a\r\nb\n\nc' });
    expect(r.stdout).toBe('["a","b","","c"]\n');
  });

  it('supports for await over readline and process.stdin data/end events', async () => {
    const iterate = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      (async () => { let n = 0; for await (const line of rl) n += Number(line); console.log(n); })();`;
    expect((await run(iterate, { stdin: '1\n2\n3\n' })).stdout).toBe('6\n');
    const events = `
      let input = '';
      process.stdin.on('data', (c) => { input += c; });
      process.stdin.on('end', () => console.log(input.trim().split('\\n').length));`;
    expect((await run(events, { stdin: 'x\ny\nz\n' })).stdout).toBe('3\n');
  });

  it('matches SandboxFusion test_nodejs_stdin', async () => {
    const code = `process.stdin.on('data', (input) => {
        const num = parseInt(input.toString());
        console.log(num);
        process.exit();
    });`;
    const r = await run(code, { stdin: '65535' });
    expect(r).toMatchObject({ status: 'Finished', return_code: 0, stdout: '65535\n' });
  });
});

describe('limits', () => {
  it('stops an infinite loop with TimeLimitExceeded', async () => {
    const r = await run('console.log("before"); while (true) {}', { runTimeoutMs: 300 });
    expect(r.status).toBe('TimeLimitExceeded');
    expect(r.return_code).toBeNull();
    expect(r.stdout).toBe('before\n');
  });

  it('stops a busy loop inside a promise callback', async () => {
    const r = await run('Promise.resolve().then(() => { while (true) {} });', { runTimeoutMs: 300 });
    expect(r.status).toBe('TimeLimitExceeded');
  });

  it('reports a timer due after the time limit as TimeLimitExceeded without waiting', async () => {
    const code = "const sleep = require('util').promisify(setTimeout); (async () => { await sleep(1000); })();";
    const r = await run(code, { runTimeoutMs: 100 });
    expect(r.status).toBe('TimeLimitExceeded');
  });

  it('reports a memory bomb with memory_limit_exceeded', async () => {
    const r = await run('const a = []; while (true) a.push(new Array(1e5).fill(1.5));', { memoryLimitMb: 32 });
    expect(r.status).toBe('Finished');
    expect(r.return_code).not.toBe(0);
    expect(r.memory_limit_exceeded).toBe(true);
    expect(r.stderr).toContain('heap out of memory');
    expect(r.stdout).toBe('');
  });

  it('contains a fatal V8 out-of-memory (hash table growth) without crashing the service', async () => {
    const notified: string[] = [];
    const fragile = testIsolateRunner({ spareWorkers: 0, onCatastrophicError: (m) => notified.push(m) });
    try {
      const r = await fragile.run(spec('const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });', { memoryLimitMb: 16 }), new AbortController().signal);
      expect(r.run_result).toMatchObject({ status: 'Finished', memory_limit_exceeded: true });
      expect(r.run_result?.return_code).not.toBe(0);
      expect(notified).toEqual(['Catastrophic out-of-memory error']);
      // The worker holding the parked isolate is replaced; the runner keeps taking work.
      const next = await fragile.run(spec('console.log(1)'), new AbortController().signal);
      expect(next.run_result?.stdout).toBe('1\n');
    } finally {
      await fragile.close();
    }
    // Two worker starts, one after the other: over 30 s measured on a loaded 2-core host.
  }, 120_000);

  it('caps an output flood and says so', async () => {
    const r = await run('for (let i = 0; i < 100000; i++) console.log("flood line " + i);', { maxOutputBytes: 1000 });
    expect(r.status).toBe('Finished');
    expect(r.return_code).toBe(0);
    expect(Buffer.byteLength(r.stdout ?? '')).toBe(1000);
    expect(r.stdout?.startsWith('flood line 0\nflood line 1\n')).toBe(true);
    expect(r.output_truncated).toBe(true);
    expect(r.notes).toEqual(['stdout truncated at 1000 bytes']);
  });

  it('clamps memory limits', () => {
    expect(clampMemory(1)).toBe(8);
    expect(clampMemory(1e6)).toBe(2048);
    expect(clampMemory(300)).toBe(300);
  });
});

describe('process lifecycle', () => {
  it('reports an uncaught exception with its stack, exit code 1', async () => {
    const r = await run('function f() {\n  throw new TypeError("boom");\n}\nf();');
    expect(r.status).toBe('Finished');
    expect(r.return_code).toBe(1);
    expect(r.stderr).toContain('/sandbox/main.js:2\n  throw new TypeError("boom");\n');
    expect(r.stderr).toContain('TypeError: boom\n    at f (/sandbox/main.js:2:9)');
    expect(r.stderr).toMatch(/Node\.js v\d+/);
  });

  it('reports failed assertions like node:assert', async () => {
    const r = await run("const assert = require('node:assert');\nassert.deepEqual([1, 2], [1, 3]);");
    expect(r.return_code).toBe(1);
    expect(r.stderr).toContain('AssertionError [ERR_ASSERTION]: Expected values to be loosely deep-equal:');
    expect(r.stderr).toContain("operator: 'deepEqual'");
  });

  it('reports unhandled promise rejections with exit code 1', async () => {
    const r = await run('async function main() { throw new Error("async boom"); }\nmain();');
    expect(r.return_code).toBe(1);
    expect(r.stderr).toContain('Error: async boom');
  });

  it('stops at process.exit(3) with return code 3', async () => {
    const r = await run('console.log("a"); process.exit(3); console.log("b");');
    expect(r).toMatchObject({ status: 'Finished', return_code: 3, stdout: 'a\n' });
  });

  it('honours process.exitCode and exit listeners', async () => {
    const r = await run('process.on("exit", (c) => console.log("exit", c)); process.exitCode = 4; console.log("main");');
    expect(r).toMatchObject({ return_code: 4, stdout: 'main\nexit 4\n' });
  });

  // Only orders Node defines, whatever the load: a main-module immediate against a
  // timer is not one (it depends on how long the loop took to start), an
  // immediate set by a timer callback against a timer set by the same callback is.
  it('runs timers, immediates, ticks and microtasks in node order', async () => {
    const code = `setTimeout(() => console.log('t0'), 0); setTimeout(() => {
        console.log('t10'); setTimeout(() => console.log('t10 timer'), 0); setImmediate(() => console.log('t10 imm'));
        Promise.resolve().then(() => console.log('t10 micro')); process.nextTick(() => console.log('t10 tick'));
      }, 10);
      Promise.resolve().then(() => { console.log('micro'); process.nextTick(() => console.log('micro tick'));
        Promise.resolve().then(() => console.log('micro micro')); });
      process.nextTick(() => console.log('tick')); console.log('sync');`;
    expect((await run(code)).stdout).toBe('sync\ntick\nmicro\nmicro micro\nmicro tick\nt0\nt10\nt10 tick\nt10 micro\nt10 imm\nt10 timer\n');
  });

  it('runs ES modules, including top-level await and builtin imports', async () => {
    const code = "import { readFileSync } from 'node:fs';\nconst v = await Promise.resolve(readFileSync(0, 'utf8'));\nconsole.log(v.trim());";
    expect((await run(code, { stdin: 'esm ok\n' })).stdout).toBe('esm ok\n');
  });

  it('throws like a missing module for unsupported requires', async () => {
    const r = await run("try { require('child_process') } catch (e) { console.log(e.code, e.message.split('\\n')[0]) }");
    expect(r.stdout).toBe("MODULE_NOT_FOUND Cannot find module 'child_process'\n");
  });
});

describe('isolation', () => {
  it('exposes no host objects', async () => {
    const code = `
      let child; try { child = typeof require('child_process'); } catch (e) { child = 'throws'; }
      const g = constructor.constructor('return this')();
      console.log(child, typeof globalThis.process.binding, typeof fetch, typeof Buffer, g === globalThis,
        typeof g.require, typeof process.dlopen, Object.keys(process.env).length);`;
    const r = await run(code);
    expect(r.stdout).toBe('throws undefined undefined undefined true undefined undefined 0\n');
  });

  it('gives each run a fresh global', async () => {
    await run('globalThis.leak = 42; Array.prototype.evil = 1;');
    expect((await run('console.log(typeof globalThis.leak, [].evil)')).stdout).toBe('undefined undefined\n');
  });

  it('aborts a run when the signal fires', async () => {
    const controller = new AbortController();
    const pending = runner.run(spec('while (true) {}'), controller.signal);
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    await expect(pending).rejects.toThrow('client went away');
  });

  it('keeps concurrent runs apart', async () => {
    const code = 'const n = Number(require("fs").readFileSync(0, "utf8")); let s = 0; for (let i = 0; i < 1e5 * n; i++) s += i % 7; console.log(n, s);';
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => run(code, { stdin: String(n + 1) })));
    results.forEach((r, n) => {
      let s = 0;
      for (let i = 0; i < 1e5 * (n + 1); i++) s += i % 7;
      expect(r.stdout).toBe(`${n + 1} ${s}\n`);
    });
    // Eight runs at once start worker processes: 20 s measured at a load average of 18 on 2 cores.
  }, 120_000);

  it('provides every builtin member that modules.ts advertises', async () => {
    const table = JSON.stringify(Object.fromEntries(Object.entries(ISOLATE_MODULES).map(([k, v]) => [k, v.members])));
    const code = `const table = ${table}; const missing = [];
      for (const [name, members] of Object.entries(table)) {
        const m = require('node:' + name);
        for (const k of members) if (!(k in m)) missing.push(name + '.' + k);
      }
      console.log(JSON.stringify(missing));`;
    expect((await run(code)).stdout).toBe('[]\n');
  });
});

// Last in the file: run before 'keeps concurrent runs apart', these made its eight simultaneous worker starts pass the 10 s start limit on a loaded host.
describe('output and timers as a real node process', () => {
  it('keeps everything written before a time-out, past the output buffers and across surrogate pairs', async () => {
    // 3 x 40,000 units: more than a 32 Ki-unit buffer, and pairs straddle its ends.
    const code =
      "process.stdout.write('a' + '😀'.repeat(40000)); console.error('x'.repeat(100000)); for (let i = 0; i < 5000; i++) console.log(i); while (true) {}";
    // The limit leaves a loaded host time to write it all before the loop starts.
    const r = await run(code, { runTimeoutMs: 2500 });
    expect(r.status).toBe('TimeLimitExceeded');
    const lines = Array.from({ length: 5000 }, (_, i) => `${i}\n`).join('');
    expect(r.stdout).toBe(`a${'😀'.repeat(40000)}${lines}`);
    expect(r.stderr).toBe(`${'x'.repeat(100000)}\n`);
  });

  it('keeps what was written before the heap limit stopped the program', async () => {
    const r = await run("console.log('allocating'); const a = []; while (true) a.push(new Array(1e5).fill(1.5));", { memoryLimitMb: 32 });
    expect(r).toMatchObject({ status: 'Finished', memory_limit_exceeded: true, stdout: 'allocating\n' });
  });

  it('runs timers on the real clock', async () => {
    const code =
      'const t0 = Date.now(); let n = 0; const t = setInterval(() => { if (++n === 3) { clearInterval(t); console.log(n, Date.now() - t0 >= 295); } }, 100);';
    expect(await run(code, { runTimeoutMs: 10_000 })).toMatchObject({ status: 'Finished', return_code: 0, stdout: '3 true\n' });
  });
});
