import { describe, expect, it } from 'vitest';
import { execute } from './execute.ts';
import { Launcher } from './launcher.ts';

describe('execute', () => {
  it('kills a sandbox that never reports its start at the setup deadline, and says so', { timeout: 60_000 }, async () => {
    // No bwrap and no supervisor: `sleep` never writes the start marker, so only the setup deadline ends it.
    const launcher = Launcher.spawn([], 1, false);
    const x = await execute(
      {
        launcher,
        dropPrivileges: [],
        command: ['sleep', '600'],
        data: [],
        hasCompile: false,
        setupTimeoutMs: 200,
        compileTimeoutMs: 1_000,
        runTimeoutMs: 1_000,
        graceMs: 100,
        maxOutputBytes: 1024,
        maxReportBytes: 1024,
        fetchCount: 0,
      },
      new AbortController().signal,
    );
    expect([x.started, x.timedOut, x.exitStatus]).toEqual([false, 'setup', null]);
  });
});
