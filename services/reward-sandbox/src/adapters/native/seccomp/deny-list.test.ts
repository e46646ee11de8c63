// The deny list's shape: what the filter and the README rely on.

import { describe, expect, it } from 'vitest';
import { DENY_LIST, DenyErrno } from './deny-list.ts';

// Named in the sandbox's threat model: each one was, or is a known, way out.
const REQUIRED = [
  'add_key',
  'keyctl',
  'request_key',
  'bpf',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'userfaultfd',
  'perf_event_open',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'pidfd_getfd',
  'kexec_load',
  'kexec_file_load',
  'open_by_handle_at',
  'mount',
  'umount2',
  'unshare',
  'setns',
  'memfd_secret',
  'init_module',
  'finit_module',
  'delete_module',
  'swapon',
  'swapoff',
  'reboot',
  'pivot_root',
  'acct',
  'settimeofday',
  'clock_settime',
  'adjtimex',
  'lookup_dcookie',
  'fanotify_init',
  'name_to_handle_at',
  'quotactl',
  'syslog',
  'vhangup',
  'uselib',
  'ustat',
  'sysfs',
  '_sysctl',
  'nfsservctl',
];

describe('DENY_LIST', () => {
  it('denies every call of the threat model', () => {
    const names = new Set(DENY_LIST.map((r) => r.syscall));
    expect(REQUIRED.filter((n) => !names.has(n))).toEqual([]);
  });

  it('names each call once, with a reason and an errno (never a kill)', () => {
    const names = DENY_LIST.map((r) => r.syscall);
    expect(new Set(names).size).toBe(names.length);
    for (const r of DENY_LIST) {
      expect(r.syscall).toMatch(/^[a-z_][a-z0-9_]*$/);
      expect(r.why.length).toBeGreaterThan(10);
      expect(Object.values(DenyErrno)).toContain(r.errno);
    }
  });

  it('answers ENOSYS where a kernel without the feature would, so callers fall back', () => {
    const errno = Object.fromEntries(DENY_LIST.map((r) => [r.syscall, r.errno]));
    for (const n of ['io_uring_setup', 'io_uring_enter', 'io_uring_register', 'clone3', 'memfd_secret']) expect(errno[n]).toBe('ENOSYS');
    for (const n of ['add_key', 'keyctl', 'ptrace', 'pidfd_getfd', 'unshare', 'mount', 'bpf', 'userfaultfd']) expect(errno[n]).toBe('EPERM');
  });

  it('denies clone only with namespace flags, one single-bit condition each', () => {
    const conditional = DENY_LIST.filter((r) => r.whenArg0HasAnyOf !== undefined);
    expect(conditional.map((r) => r.syscall)).toEqual(['clone']);
    const bits = conditional[0]!.whenArg0HasAnyOf!;
    for (const b of bits) expect(b > 0 && (b & (b - 1)) === 0).toBe(true);
    expect(bits).toEqual(expect.arrayContaining([0x10000000, 0x00020000, 0x20000000])); // NEWUSER, NEWNS, NEWPID
    // Never a bit fork and threads pass: the exit signal (low byte), CLONE_VM, CLONE_FS, CLONE_FILES, CLONE_SIGHAND, CLONE_THREAD...
    const ordinary = 0xff | 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000 | 0x100000 | 0x200000 | 0x1000000;
    for (const b of bits) expect(b & ordinary).toBe(0);
  });
});
