// Red-team cases for the seccomp filter, one contract for every back-end:
// python cases run against the per-run bubblewrap sandbox and the zygote,
// native cases (bash, cpp) against bubblewrap. Each attack is one that worked
// before the filter (or one a program could not tell from an ordinary error),
// so each case fails if its back-end runs programs without the filter.
// Raw syscall numbers are x86_64's; elsewhere the cases are skipped.

import { expect, it } from 'vitest';
import type { RunSpec, Runner } from '../../../../core/runner.ts';
import { testRunSpec } from '../../../../core/testing/run-spec.ts';
import { marker } from '../../testing/python-containment.ts';

/** True where the cases' syscall numbers apply. */
export const seccompCasesApply = process.arch === 'x64';

const NR = {
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  ptrace: 101,
  mount: 165,
  unshare: 272,
  clone: 56,
  clone3: 435,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  pidfd_open: 434,
  pidfd_getfd: 438,
};
const EPERM = 1;
const ENOSYS = 38;
const never = new AbortController().signal;

function spec(language: string, code: string, extra: Partial<RunSpec> = {}): RunSpec {
  return testRunSpec(language, code, { compileTimeoutMs: 20_000, runTimeoutMs: 5_000, memoryLimitMb: 256, ...extra });
}

const PY_SYSCALL = `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sys_call(nr, *args):
    ctypes.set_errno(0)
    rc = libc.syscall(nr, *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return rc, (ctypes.get_errno() if rc < 0 else 0)
`;

/** Run 1 of the keyring attack: stores `secret` in the user keyring as `desc`. */
const addKey = (desc: string, secret: string) => `${PY_SYSCALL}
print(*sys_call(${NR.add_key}, b"user", b"${desc}", b"${secret}", ${secret.length}, -4))`;

/** Run 2: every way to another run's key, through /proc/keys and keyctl; prints what it reads and the errnos. */
const readKeys = (desc: string) => `${PY_SYSCALL}
ids = []
try:
    ids = [int(line.split()[0], 16) for line in open("/proc/keys") if line.strip()]
except OSError as e:
    print("proc-keys", e.errno)
errnos = set()
buf = ctypes.create_string_buffer(4096)
def note(r):
    errnos.add(r[1])
    return r[0]
note(sys_call(${NR.request_key}, b"user", b"${desc}", None, -4))
for k in ids + [-4, -5]:  # every listed key, the user and user-session keyrings
    note(sys_call(${NR.keyctl}, 8, k, -2))  # KEYCTL_LINK into the process keyring: possession
    found = note(sys_call(${NR.keyctl}, 10, k, b"user", b"${desc}", 0))  # KEYCTL_SEARCH
    for target in {k, found}:
        n = note(sys_call(${NR.keyctl}, 11, target, buf, 4096))  # KEYCTL_READ
        if n > 0:
            print("read", buf.raw[:n])
print("keyctl errnos", sorted(errnos))`;

/** Registers the python cases (call inside a describe). */
export function seccompPythonCases(runner: () => Runner): void {
  const run = (code: string) => runner().run(spec('python', code), never);

  it("keyring: a run cannot store a secret for a later run, nor read another run's keys", async () => {
    const desc = `sbx-${marker()}`;
    const secret = `keyring-secret-${marker()}`;
    const first = await run(addKey(desc, secret));
    expect(first.run_result).toMatchObject({ return_code: 0, stdout: `-1 ${EPERM}\n` });
    const second = await run(readKeys(desc));
    expect(second.run_result?.return_code).toBe(0);
    expect(second.run_result?.stdout).not.toContain(secret);
    expect(second.run_result?.stdout).toContain(`keyctl errnos [${EPERM}]\n`);
  });

  it("pidfd_getfd cannot take another process's file descriptor (EPERM)", async () => {
    // The target is the program's own child: same uid, dumpable, so only the filter stops it.
    const code = `${PY_SYSCALL}
hold_r, hold_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(hold_w); os.read(hold_r, 1); os._exit(0)
pfd, _ = sys_call(${NR.pidfd_open}, pid, 0)
print("pidfd_open", pfd >= 0, "pidfd_getfd", *sys_call(${NR.pidfd_getfd}, pfd, hold_r, 0))
os.close(hold_w); os.waitpid(pid, 0)`;
    const out = await run(code);
    expect(out.run_result).toMatchObject({ return_code: 0, stdout: `pidfd_open True pidfd_getfd -1 ${EPERM}\n`, stderr: '' });
  });

  it('denied calls fail with EPERM or ENOSYS and the program carries on', async () => {
    const code = `${PY_SYSCALL}
params = ctypes.create_string_buffer(128)
for name, nr, args in [
    ("unshare", ${NR.unshare}, [0x10000000]),  # CLONE_NEWUSER
    ("mount", ${NR.mount}, [b"none", b"/tmp", b"tmpfs", 0, None]),
    ("ptrace", ${NR.ptrace}, [0, 0, 0, 0]),  # PTRACE_TRACEME
    ("bpf", ${NR.bpf}, [0, None, 0]),
    ("userfaultfd", ${NR.userfaultfd}, [1]),  # UFFD_USER_MODE_ONLY: the kernel allows it unprivileged
    ("io_uring_setup", ${NR.io_uring_setup}, [1, params]),
    ("clone3", ${NR.clone3}, [None, 0]),
    ("clone_newuser", ${NR.clone}, [0x10000000 | 17, 0, 0, 0, 0]),
]:
    print(name, *sys_call(nr, *args))
print("alive")`;
    const out = await run(code);
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stderr: '' });
    expect(out.run_result?.stdout).toBe(
      [
        `unshare -1 ${EPERM}`,
        `mount -1 ${EPERM}`,
        `ptrace -1 ${EPERM}`,
        `bpf -1 ${EPERM}`,
        `userfaultfd -1 ${EPERM}`,
        `io_uring_setup -1 ${ENOSYS}`,
        `clone3 -1 ${ENOSYS}`,
        `clone_newuser -1 ${EPERM}`,
        'alive',
        '',
      ].join('\n'),
    );
  });

  it('a well-behaved program still works: threads, fork, subprocess, plausible timing', async () => {
    const code =
      'import os, subprocess, threading\nt = threading.Thread(target=print, args=("thread",)); t.start(); t.join()\npid = os.fork()\nif pid == 0: os._exit(7)\nprint("fork", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\nprint(subprocess.run(["echo", "sub"], capture_output=True, text=True).stdout, end="")\nprint("hello")';
    const out = await run(code);
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'thread\nfork 7\nsub\nhello\n', stderr: '' });
    expect(out.run_result?.execution_time).toBeGreaterThan(0);
    expect(out.run_result?.execution_time).toBeLessThan(3);
  });
}

/** Registers the bash and cpp cases (bubblewrap; call inside a describe). */
export function seccompNativeCases(runner: () => Runner): void {
  const run = (language: string, code: string) => runner().run(spec(language, code), never);

  it("keyring: neither a concurrent bash run nor a python run reads another run's secret", async () => {
    const desc = `sbx-${marker()}`;
    const secret = `keyring-secret-${marker()}`;
    const first = await run('python', addKey(desc, secret));
    expect(first.run_result?.stdout).toBe(`-1 ${EPERM}\n`);
    // keyctl(1) from keyutils when the host has it, else the same calls through python.
    const bash = `if command -v keyctl >/dev/null; then
  for k in $(sed 's/^\\([0-9a-f]*\\).*/0x\\1/' /proc/keys) @u @us; do keyctl link "$k" @p; keyctl print "$k"; done
  keyctl request user ${desc} @p; keyctl print %user:${desc}
  echo "keyctl rc=$?"
else
  python3 - <<'PY'
${readKeys(desc)}
PY
fi`;
    const [sh, py] = await Promise.all([run('bash', bash), run('python', readKeys(desc))]);
    for (const out of [sh, py]) {
      expect(`${out.run_result?.stdout}${out.run_result?.stderr}`).not.toContain(secret);
      expect(out.run_result?.stdout).toMatch(new RegExp(`keyctl errnos \\[${EPERM}\\]\\n|keyctl rc=1\\n`));
    }
  });

  it("a cpp program cannot take the supervisor's report socket with pidfd_getfd", async () => {
    const code = `#include <cerrno>
#include <cstdio>
#include <sys/syscall.h>
#include <unistd.h>
int main() {
  long pfd = syscall(SYS_pidfd_open, getppid(), 0);
  long fd = syscall(SYS_pidfd_getfd, pfd, 3, 0);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) dprintf(fd, "R 0\\n");  // a forged end-of-run marker
  std::printf("pidfd_open %d pidfd_getfd %ld %d\\n", pfd >= 0, fd, err);
}`;
    const out = await run('cpp', code);
    expect(out.run_result).toMatchObject({ return_code: 0, stdout: `pidfd_open 1 pidfd_getfd -1 ${EPERM}\n` });
  });

  it.each([
    ['the i386 ABI (int 0x80)', 'long r; asm volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");'],
    ['the x32 ABI', 'long r = syscall(0x40000000L | SYS_getpid);'],
  ])('kills a program that makes a call through %s (rules are written for x86_64)', async (_name, call) => {
    const code = `#include <cstdio>\n#include <sys/syscall.h>\n#include <unistd.h>\nint main() {\n  std::puts("before"); std::fflush(stdout);\n  ${call}\n  std::printf("survived %ld\\n", r);\n}`;
    const out = await run('cpp', code);
    expect(out.run_result?.stdout).toBe('before\n');
    expect(out.run_result?.return_code).toBe(-31); // SIGSYS
  });

  it.each([
    ['bash', 'echo hello | cat; x=$(echo sub); (echo "$x"); sleep 0.01 & wait'],
    [
      'cpp',
      '#include <iostream>\n#include <thread>\nint main() { std::thread t([] { std::cout << "thread" << std::endl; }); t.join(); std::cout << "hello" << std::endl; }',
    ],
  ])('a well-behaved %s program still works with plausible timing', async (language, code) => {
    const out = await run(language, code);
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stderr: '' });
    expect(out.run_result?.stdout).toBe(language === 'bash' ? 'hello\nsub\n' : 'thread\nhello\n');
    expect(out.run_result?.execution_time).toBeGreaterThan(0);
    expect(out.run_result?.execution_time).toBeLessThan(3);
  });
}
