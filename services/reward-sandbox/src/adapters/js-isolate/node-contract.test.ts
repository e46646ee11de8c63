// The isolate fast path against a real `node` process, program by program: what
// a program printed before it timed out, crashed or ran out of memory, and
// timers on the real clock. Each program runs through IsolateRunner and through
// `node main.js` spawned here (the same binary the workers use), killed with
// SIGKILL at the same time limit, as the bubblewrap runner kills it. Compared:
// stdout and stderr as they were written (stack traces normalised: node's own
// internal frames and the temp dir's path differ) and the status and return code
// as the runners report them (a SIGKILL at the limit: TimeLimitExceeded, null).
// No sleeps: every wait is a run that ends by its own limit.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testRunSpec } from '../../core/testing/run-spec.ts';
import { testIsolateRunner } from './testing/runner.ts';

interface Ran {
  status: string;
  returnCode: number | null;
  stdout: string;
  stderr: string;
}

const SIGNALS: Record<string, number> = { SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGTRAP: 5 };
const workDir = mkdtempSync(join(tmpdir(), 'js-contract-'));
const runner = testIsolateRunner({ spareWorkers: 1, warmMemoryMb: [256] });
afterAll(async () => {
  await runner.close();
  rmSync(workDir, { recursive: true, force: true });
});

let nextFile = 0;
/** `node main.js` with the run's limits; killed at the time limit. */
function runNode(code: string, timeoutMs: number, memoryMb: number): Promise<Ran> {
  const dir = join(workDir, String(nextFile++));
  const file = join(dir, 'main.js');
  mkdirSync(dir);
  writeFileSync(file, code);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${memoryMb}`, file], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8').replaceAll(dir, '/sandbox');
      resolve({
        status: killed ? 'TimeLimitExceeded' : 'Finished',
        returnCode: killed ? null : (code ?? 128 + (SIGNALS[signal ?? ''] ?? 0)),
        stdout: text(out),
        stderr: text(err),
      });
    });
  });
}

async function runIsolate(code: string, timeoutMs: number, memoryMb: number): Promise<Ran & { memoryLimitExceeded: boolean }> {
  const outcome = await runner.run(testRunSpec('nodejs', code, { runTimeoutMs: timeoutMs, memoryLimitMb: memoryMb }), new AbortController().signal);
  const r = outcome.run_result;
  if (r === null) throw new Error('no run_result');
  return {
    status: r.status,
    returnCode: r.return_code,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    memoryLimitExceeded: r.memory_limit_exceeded === true,
  };
}

/**
 * What stderr may differ in: Node's own frames (node:internal/...), the isolate's
 * frame for the call into the CommonJS wrapper (Node's is internal), and the
 * caret under the source line (Node puts it at the `throw`, the isolate at the
 * error's first stack frame, which is all a program's own code can see).
 */
function normaliseStack(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^\s+at (?:.* \()?node:internal\//.test(line) && line !== '    at /sandbox/main.js' && !/^\s*\^\s*$/.test(line))
    .join('\n');
}

// A program that ends on its own gets a limit far past its needs: on a loaded host,
// starting `node` alone can take a good part of a second.
async function both(code: string, timeoutMs = 10_000, memoryMb = 256) {
  const [node, isolate] = await Promise.all([runNode(code, timeoutMs, memoryMb), runIsolate(code, timeoutMs, memoryMb)]);
  return { node, isolate };
}

/** Programs whose output, status and return code must be the same byte for byte. */
const EXACT: Array<{ name: string; code: string; timeoutMs?: number; status: string; returnCode: number | null }> = [
  {
    name: 'print, then an infinite loop',
    code: "console.log('before the loop');\nconsole.error('on stderr');\nprocess.stdout.write('no newline');\nwhile (true) {}",
    // Long enough for `node` to start and print on a loaded host before the kill.
    timeoutMs: 2500,
    status: 'TimeLimitExceeded',
    returnCode: null,
  },
  {
    name: 'print, then throw',
    code: "console.log('a');\nconsole.error('b');\nfunction f() {\n  throw new TypeError('boom');\n}\nf();",
    status: 'Finished',
    returnCode: 1,
  },
  {
    name: 'print, then throw from a timer',
    code: "console.log('armed');\nsetTimeout(() => {\n  console.log('firing');\n  throw new Error('late');\n}, 200);",
    status: 'Finished',
    returnCode: 1,
  },
  {
    name: 'print, then an unhandled rejection',
    code: "console.log('start');\nPromise.reject(new RangeError('nope'));",
    status: 'Finished',
    returnCode: 1,
  },
  {
    name: 'setInterval ticking ~1 s, then clearInterval',
    code: [
      // Measured from just before setInterval, where Node's timer starts counting
      // (each repeat counts from just before its callback): ten intervals are at
      // least 1000 ms later, less a few ms of clock rounding, however late any tick
      // ran. (From the first tick's Date.now() it is not: a tick delayed between
      // re-arming and its Date.now() shortens the measured span, in Node too.)
      'const first = Date.now();',
      'let n = 0;',
      'const t = setInterval(() => {',
      "  console.log('tick', ++n);",
      '  if (n === 10) {',
      '    clearInterval(t);',
      "    console.log('real time passed:', Date.now() - first >= 980);",
      '  }',
      '}, 100);',
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
  {
    name: 'a timer counts from when it is set, not from the start of a busy script or callback',
    code: [
      'const busy = (ms) => { const s = Date.now(); while (Date.now() - s < ms); };',
      'busy(200);',
      'const t0 = Date.now();',
      'setTimeout(() => {',
      "  console.log('waited:', Date.now() - t0 >= 98);",
      '  busy(200);',
      '  const t1 = Date.now();',
      "  setTimeout(() => console.log('waited again:', Date.now() - t1 >= 98), 100);",
      '}, 100);',
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
  {
    name: 'setTimeout chains with immediates, ticks and promises',
    code: [
      'let start = 0;',
      'let depth = 0;',
      'function next() {',
      "  console.log('timeout', depth);",
      '  if (depth === 0) start = Date.now();',
      "  setImmediate(() => console.log('immediate', depth));",
      "  process.nextTick(() => console.log('tick', depth));",
      "  Promise.resolve().then(() => console.log('micro', depth));",
      '  if (++depth < 5) setTimeout(next, 60);',
      "  else setTimeout(() => console.log('waited:', Date.now() - start >= 280), 60);",
      '}',
      'setTimeout(next, 0);',
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
  {
    // Only orders Node defines: ticks before promise jobs (a tick queued by a
    // promise job after the jobs already queued), timers by due time when the
    // later-due one is set after the earlier, equal delays first-in first-out, and
    // an immediate set by a timer callback before a timer set by the same callback.
    // Not here: a main-module immediate against a timer, whose order Node leaves to
    // how long the loop took to start.
    name: 'ticks, promise jobs, timers and immediates in the orders node defines',
    code: [
      'const log = (s) => console.log(s);',
      "setTimeout(() => log('timeout 0'), 0);",
      "setTimeout(() => log('timeout 5'), 5);",
      'setTimeout(() => {',
      "  log('timeout 5, second');",
      "  setTimeout(() => log('timeout from a timer'), 0);",
      "  setImmediate(() => log('immediate from a timer'));",
      "  Promise.resolve().then(() => log('micro from a timer'));",
      "  process.nextTick(() => log('tick from a timer'));",
      '}, 5);',
      'Promise.resolve().then(() => {',
      "  log('micro');",
      "  process.nextTick(() => log('tick from a microtask'));",
      "  Promise.resolve().then(() => log('micro from a microtask'));",
      '});',
      'process.nextTick(() => {',
      "  log('tick');",
      "  Promise.resolve().then(() => log('micro from a tick'));",
      "  process.nextTick(() => log('tick from a tick'));",
      '});',
      "log('sync');",
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
  {
    // An ES module body runs as a promise job: its ticks wait for the promise jobs.
    name: 'an ES module: ticks after the promise jobs, across a top-level await',
    code: [
      "import { setImmediate as later } from 'node:timers';",
      "process.nextTick(() => console.log('tick'));",
      "Promise.resolve().then(() => console.log('micro'));",
      'await null;',
      "console.log('after await');",
      "later(() => console.log('immediate'));",
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
  {
    name: 'timer and immediate callbacks: their `this` and stack frames',
    code: [
      'setTimeout(function () {',
      "  console.log(this.constructor.name, new Error('t').stack.split('\\n')[1]);",
      '  setImmediate((a) => {',
      "    console.log(a, new Error('i').stack.split('\\n')[1]);",
      '    setTimeout((b) => {',
      "      console.log(b, new Error('u').stack.split('\\n')[1]);",
      '    }, 1, 8);',
      '  }, 7);',
      '}, 1);',
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
  {
    name: 'a timer due after the time limit',
    code: "console.log('waiting');\nsetTimeout(() => console.log('never'), 60_000);",
    timeoutMs: 2500,
    status: 'TimeLimitExceeded',
    returnCode: null,
  },
  {
    name: 'process.stdout.write without a newline, then exit',
    code: "process.stdout.write('no newline');\nprocess.stderr.write('err, no newline');\nprocess.exit(3);",
    status: 'Finished',
    returnCode: 3,
  },
  {
    name: 'console.log and console.error interleaved',
    code: [
      'for (let i = 0; i < 5; i++) {',
      "  console.log('out', i);",
      "  console.error('err', i);",
      "  process.stdout.write(i + ',');",
      "  process.stderr.write(i + ';');",
      '}',
      'console.log({ done: true, list: [1, 2, 3] });',
    ].join('\n'),
    status: 'Finished',
    returnCode: 0,
  },
];

describe('the isolate fast path behaves as a real node process', () => {
  for (const c of EXACT) {
    it(c.name, async () => {
      const { node, isolate } = await both(c.code, c.timeoutMs);
      expect(node).toMatchObject({ status: c.status, returnCode: c.returnCode });
      expect(isolate).toMatchObject({ status: node.status, returnCode: node.returnCode, stdout: node.stdout });
      expect(normaliseStack(isolate.stderr)).toBe(normaliseStack(node.stderr));
    }, 60_000);
  }

  it('setInterval forever: stopped at the real time limit, its ticks kept', async () => {
    const code = "let n = 0;\nsetInterval(() => console.log('tick', ++n), 100);";
    const { node, isolate } = await both(code, 2000);
    expect(node.status).toBe('TimeLimitExceeded');
    expect(isolate).toMatchObject({ status: 'TimeLimitExceeded', returnCode: null, stderr: '' });
    // How many ticks make it depends on how fast each runner started and how the
    // host scheduled it, so the two counts are not compared with each other. Both
    // are bounded by the clock: a 100 ms interval never fires early, so at most 20
    // in 2 s (a runner on a virtual clock would print thousands), and a quarter of
    // the limit's ticks leaves 1.5 s for a loaded host's start-up and stalls.
    const ticks = (out: string) => out.split('\n').filter(Boolean);
    const expected = (n: number) => Array.from({ length: n }, (_, i) => `tick ${i + 1}`);
    for (const { stdout } of [isolate, node]) {
      expect(ticks(stdout)).toEqual(expected(ticks(stdout).length));
      expect(ticks(stdout).length).toBeGreaterThanOrEqual(5);
      expect(ticks(stdout).length).toBeLessThanOrEqual(20);
    }
  }, 60_000);

  it('print, then run out of memory: the output is kept, the heap-limit verdict as the native runner gives it', async () => {
    const code = "console.log('allocating');\nconsole.error('on stderr');\nconst a = [];\nwhile (true) a.push(new Array(1e5).fill(1.5));";
    const { node, isolate } = await both(code, 10_000, 64);
    expect(node).toMatchObject({ status: 'Finished', returnCode: 134, stdout: 'allocating\n' });
    expect(node.stderr).toMatch(/^on stderr\n[\s\S]*JavaScript heap out of memory/);
    expect(isolate).toMatchObject({ status: 'Finished', returnCode: 134, stdout: 'allocating\n', memoryLimitExceeded: true });
    expect(isolate.stderr).toMatch(/^on stderr\n[\s\S]*heap out of memory/);
  }, 60_000);
});
