// The BPF builder against the real libseccomp (Debian libseccomp2, a base-system
// package the Makefile installs when missing). Each build also loads its program
// into a child and checks a denied call (the helper's self-test).

import { describe, expect, it } from 'vitest';
import { DENY_LIST } from './deny-list.ts';
import { SeccompProblem, SeccompUnavailableError, buildSeccompFilter, describeSeccompFilter } from './filter.ts';

describe('buildSeccompFilter', () => {
  it('compiles the whole deny list into whole BPF instructions, every name placed', () => {
    const f = buildSeccompFilter();
    expect(f.bpf.length).toBeGreaterThan(0);
    expect(f.bpf.length % 8).toBe(0);
    expect(f.libseccomp).toMatch(/^\d+\.\d+\.\d+$/);
    expect(f.unknown).toEqual([]);
    expect([...f.denied, ...f.absent].sort()).toEqual(DENY_LIST.map((r) => r.syscall).sort());
  });

  it('starts with an architecture check, so calls through another ABI never reach the rules', () => {
    const f = buildSeccompFilter({ rules: [{ syscall: 'keyctl', errno: 'EPERM', why: 'test' }] });
    // ld [4] (seccomp_data.arch), then jeq against this host's AUDIT_ARCH.
    expect(f.bpf.readUInt16LE(0)).toBe(0x20);
    expect(f.bpf.readUInt32LE(4)).toBe(4);
    expect(f.bpf.readUInt16LE(8)).toBe(0x15);
    const arch = { x64: 0xc000003e, arm64: 0xc00000b7 }[process.arch as string];
    if (arch !== undefined) expect(f.bpf.readUInt32LE(12)).toBe(arch);
  });

  it('grows with the rules: one call makes a shorter program than the list', () => {
    const one = buildSeccompFilter({ rules: [{ syscall: 'keyctl', errno: 'EPERM', why: 'test' }] });
    const all = buildSeccompFilter();
    expect(one.bpf.length).toBeLessThan(all.bpf.length);
    expect(one.denied).toEqual(['keyctl']);
  });

  it('reports a name libseccomp does not know and still builds the rest', () => {
    const f = buildSeccompFilter({
      rules: [
        { syscall: 'keyctl', errno: 'ENOSYS', why: 'test' },
        { syscall: 'not_a_syscall', errno: 'EPERM', why: 'test' },
      ],
    });
    expect(f.unknown).toEqual(['not_a_syscall']);
    expect(f.denied).toEqual(['keyctl']);
    expect(f.bpf.length % 8).toBe(0);
  });

  it('fails with library_missing when libseccomp cannot be loaded', () => {
    let err: unknown;
    try {
      buildSeccompFilter({ library: '/nonexistent/libseccomp.so.2' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SeccompUnavailableError);
    expect((err as SeccompUnavailableError).code).toBe(SeccompProblem.LibraryMissing);
  });

  it('fails with build_failed when the helper cannot run', () => {
    let err: unknown;
    try {
      buildSeccompFilter({ pythonPath: '/nonexistent/python3' });
    } catch (e) {
      err = e;
    }
    expect((err as SeccompUnavailableError).code).toBe(SeccompProblem.BuildFailed);
  });

  it('describes a filter for logs without its bytes', () => {
    const d = describeSeccompFilter(buildSeccompFilter({ rules: [{ syscall: 'keyctl', errno: 'EPERM', why: 'test' }] }));
    expect(d).not.toHaveProperty('bpf');
    expect(d).toMatchObject({ denied: ['keyctl'], unknown: [] });
    expect(d.instructions).toBeGreaterThan(3);
  });
});
