// Pure helpers of the bubblewrap runner: path hygiene, output capping, the
// report-channel parser, the memory verdict and budgets, and the command line.

import { describe, expect, it } from 'vitest';
import { RUN_CGROUP_PROCS, SANDBOX_ENV, bwrapArgs, type SandboxPlan } from './argv.ts';
import { CGROUP_SLACK_MB, runCgroupBytes, runMarginMb, slotCgroupBytes } from '../plan/memory-budget.ts';
import { decodeReturnCode, memoryLimitExceeded, type MemoryEvidence } from '../memory-verdict.ts';
import { CappedBuffer } from './output.ts';
import { safeFetchPath, safeRelativePath, shellQuote } from '../plan/paths.ts';
import { ReportParser } from './report.ts';
import { supervisorScript } from './supervisor.ts';

describe('safeRelativePath', () => {
  it('normalises harmless paths', () => {
    expect(safeRelativePath('a//b/./c.txt')).toBe('a/b/c.txt');
  });
  it.each(['/etc/passwd', '../x', 'a/../../x', 'a/..', '', '.', 'a\0b'])('rejects %j', (p) => {
    expect(() => safeRelativePath(p)).toThrow(/invalid path/);
  });
  it('fetches absolute paths only from the writable areas', () => {
    expect(safeFetchPath('out/x')).toBe('out/x');
    expect(safeFetchPath('/tmp/a//b')).toBe('/tmp/a/b');
    expect(safeFetchPath('/dev/shm/s')).toBe('/dev/shm/s');
    expect(safeFetchPath('/mnt/b')).toBe('/mnt/b');
    for (const p of ['/etc/passwd', '/tmp', '/tmpx/a', '/dev/shmx', '/mntx/b']) expect(safeFetchPath(p)).toBeNull();
    expect(() => safeFetchPath('/tmp/../etc/passwd')).toThrow(/invalid path/);
  });
  it('quotes shell words, embedded quotes included', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});

describe('CappedBuffer', () => {
  it('keeps the first cap bytes, counts the rest and decodes lossily', () => {
    const b = new CappedBuffer(4);
    b.push(Buffer.from('ab'));
    b.push(Buffer.from([0x63, 0xff, 0x64, 0x65]));
    expect(b.text()).toBe('abc\ufffd');
    expect(b.truncated).toBe(true);
    expect(b.seen).toBe(6);
  });
});

describe('ReportParser', () => {
  it('parses markers, times and fetched files split across chunks', () => {
    const events: string[] = [];
    const p = new ReportParser(1 << 20, 2, {
      onStart: () => events.push('S'),
      onCompiled: (rc) => events.push(`C${rc}`),
      onRunEnd: (rc) => events.push(`R${rc}`),
    });
    for (const chunk of ['S\nC 0\nT\n0m0.01s 0m0.00s\n0m1', '.500s 0m0.250s\nR 3\nF 1\naGk=', '\nF 7\nAAAA\nF 0\nnot base64!\n']) p.push(Buffer.from(chunk));
    expect(events).toEqual(['S', 'C0', 'R3']);
    expect(p.cpu).toEqual([1.75]);
    expect([...p.files]).toEqual([[1, 'aGk=']]); // index 7 is out of range, index 0 is not base64
  });
  it('ignores markers before the start and stops at the cap', () => {
    const events: string[] = [];
    // 'R 0\nS\nR 1\n' is exactly the 10-byte cap; 'R 2' is past it.
    const p = new ReportParser(10, 1, { onStart: () => events.push('S'), onCompiled: () => events.push('C'), onRunEnd: () => events.push('R') });
    p.push(Buffer.from('R 0\nS\nR 1\nR 2\n'));
    expect(events).toEqual(['S', 'R']);
    expect(p.overflowed).toBe(true);
  });
});

describe('memory verdict', () => {
  const base: MemoryEvidence = {
    returnCode: 1,
    stderr: '',
    markers: [/MemoryError/],
    killedByUs: false,
    cpuLimitReached: false,
    memoryLimitMb: 100,
    cgroup: null,
  };
  it('maps 128+N exit statuses to -N', () => {
    expect([decodeReturnCode(137), decodeReturnCode(139), decodeReturnCode(1), decodeReturnCode(255)]).toEqual([-9, -11, 1, 255]);
  });
  it('applies the documented rules', () => {
    expect(memoryLimitExceeded({ ...base, stderr: 'MemoryError' })).toBe(true);
    expect(memoryLimitExceeded({ ...base, returnCode: 0, stderr: 'MemoryError' })).toBe(false);
    expect(memoryLimitExceeded({ ...base, returnCode: -9 })).toBe(true);
    expect(memoryLimitExceeded({ ...base, returnCode: -9, killedByUs: true })).toBe(false);
    expect(memoryLimitExceeded({ ...base, returnCode: -9, cpuLimitReached: true })).toBe(false);
    expect(memoryLimitExceeded({ ...base, returnCode: -11 })).toBe(false);
    expect(memoryLimitExceeded({ ...base, returnCode: -11, cgroup: { oomKills: 0, peakBytes: 95 * 1024 * 1024 } })).toBe(true);
    expect(memoryLimitExceeded({ ...base, returnCode: 1, cgroup: { oomKills: 1, peakBytes: null } })).toBe(true);
    // A crash in a slot that already held 90 MB (its zygote, pages of an earlier run) did not grow near the limit.
    const held = { oomKills: 0, peakBytes: 95 * 1024 * 1024, startBytes: 90 * 1024 * 1024 };
    expect(memoryLimitExceeded({ ...base, returnCode: -11, cgroup: held })).toBe(false);
    expect(memoryLimitExceeded({ ...base, returnCode: -11, cgroup: { ...held, startBytes: 2 * 1024 * 1024 } })).toBe(true);
  });
});

describe('bwrapArgs', () => {
  const plan: SandboxPlan = {
    layout: { rootEntries: [], etc: [] },
    uid: 65534,
    env: { ...SANDBOX_ENV },
    tmpBytes: 1 << 20,
    shmBytes: 1 << 20,
    files: [],
    infoFd: 6,
    command: ['/bin/true'],
  };
  it('loads the seccomp program from its fd when given one, as a bwrap option before the command', () => {
    const a = bwrapArgs({ ...plan, seccompFd: 7 });
    const i = a.indexOf('--seccomp');
    expect(a[i + 1]).toBe('7');
    expect(i).toBeLessThan(a.indexOf('--'));
    expect(bwrapArgs(plan)).not.toContain('--seccomp');
  });

  it("binds the run cgroups' cgroup.procs writable only when given", () => {
    const a = bwrapArgs({ ...plan, runCgroupProcs: ['/cg/run0/cgroup.procs', '/cg/run1/cgroup.procs'] });
    const i = a.indexOf(RUN_CGROUP_PROCS);
    expect(a.slice(i - 2, i + 4)).toEqual(['--bind', '/cg/run0/cgroup.procs', RUN_CGROUP_PROCS, '--bind', '/cg/run1/cgroup.procs', `${RUN_CGROUP_PROCS}.1`]);
    expect(bwrapArgs(plan)).not.toContain(RUN_CGROUP_PROCS);
  });
});

describe('memory budgets', () => {
  const MiB = 1024 * 1024;
  it('gives the program its limit + max(32 MiB, 25%) in its run cgroup', () => {
    expect([16, 64, 128, 256, 1024, 4096].map(runMarginMb)).toEqual([32, 32, 32, 64, 256, 1024]);
    expect(runCgroupBytes(128)).toBe(160 * MiB);
    expect(runCgroupBytes(1024)).toBe(1280 * MiB);
  });
  it('raises a run step that compiles to its floor', () => {
    expect(runCgroupBytes(128, 512)).toBe(640 * MiB);
    expect(runCgroupBytes(2048, 512)).toBe(runCgroupBytes(2048));
  });
  it("sizes the slot's cgroup as the run cgroup + /tmp + slack", () => {
    expect(slotCgroupBytes(128, 257 * MiB)).toBe(runCgroupBytes(128) + 257 * MiB + CGROUP_SLACK_MB * MiB);
  });
});

describe('supervisorScript', () => {
  const step = { argv: ['prog'], limits: 'ulimit -c 0' };
  it('moves only the run step into the run cgroup, before its limits, and stops the run if it cannot', () => {
    const script = supervisorScript({ compile: { argv: ['cc'], limits: 'ulimit -c 0' }, run: step, stdinPath: null, fetch: [], joinCgroup: RUN_CGROUP_PROCS });
    const join = `{ echo 0 > '${RUN_CGROUP_PROCS}' || exit 125; }`;
    expect(script.split(join)).toHaveLength(2);
    const runLine = script.split('\n').find((l) => l.includes('prog'));
    expect(runLine?.startsWith(`( ${join} && ulimit -c 0 && exec 'prog' )`)).toBe(true);
    expect(supervisorScript({ run: step, stdinPath: null, fetch: [] })).not.toContain('cgroup.procs');
  });
});
