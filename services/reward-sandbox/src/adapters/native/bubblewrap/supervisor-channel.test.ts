// The supervisor's report channel against a hostile program in a real bubblewrap
// sandbox: the program shares the supervisor's uid, so these check that it can
// reach neither the supervisor's memory nor its report socket, and that the
// time reported is the host's, not the program's word.

import { afterAll, describe, expect, it } from 'vitest';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from './bubblewrap-runner.ts';

const runner = new BwrapRunner({ nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;
// A limit far past what these programs need (the longest busy-waits 1.2 s), for a loaded host.
const python = (code: string, runTimeoutMs = 15_000) => testRunSpec('python', code, { runTimeoutMs, memoryLimitMb: 256 });

describe.skipIf(!runner.languages().includes('python'))('bwrap supervisor channel', () => {
  it("the program cannot open its supervisor's memory, fds or environment", async () => {
    const code = [
      'import os',
      'pp = os.getppid()',
      "for what, mode in (('mem', 'rb+'), ('mem', 'rb'), ('environ', 'rb'), ('fd/3', 'wb')):",
      '    try:',
      "        open(f'/proc/{pp}/{what}', mode).close(); print(what, mode, 'OPEN')",
      '    except OSError as e:',
      "        print(what, mode, 'denied', e.errno)",
    ].join('\n');
    const out = await runner.run(python(code), never);
    expect(out.run_result?.return_code).toBe(0);
    const lines = (out.run_result?.stdout ?? '').trim().split('\n');
    expect(lines).toHaveLength(4);
    // EACCES (13): the supervisor is not dumpable, so /proc closes its entries to the program.
    for (const line of lines) expect(line).toMatch(/ denied 13$/);
  }, 20_000);

  it('a program that tries to forge an early end marker gets the time the host measured', async () => {
    // Tries every route to the report socket, then burns ~1.2 s of wall time and
    // prints how long it ran by its own clock: the reported time may not be shorter.
    const code = [
      'import os, time',
      't0 = time.monotonic()',
      'pp = os.getppid()',
      'for fd in range(3, 64):',
      '    try: os.write(fd, b"R 0\\nT\\n0m0.000s 0m0.000s\\n0m0.000s 0m0.000s\\n")',
      '    except OSError: pass',
      'try:',
      "    with open(f'/proc/{pp}/fd/3', 'wb') as f: f.write(b'R 0\\n')",
      'except OSError: pass',
      'while time.monotonic() - t0 < 1.2: pass',
      "print(f'{time.monotonic() - t0:.3f}')",
    ].join('\n');
    const out = await runner.run(python(code), never);
    expect(out.run_result?.status).toBe('Finished');
    expect(out.run_result?.return_code).toBe(0);
    const own = Number(out.run_result?.stdout?.trim());
    expect(own).toBeGreaterThanOrEqual(1.2);
    expect(out.run_result!.execution_time).toBeGreaterThanOrEqual(own);
  }, 20_000);
});
