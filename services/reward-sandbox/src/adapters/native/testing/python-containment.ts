// One containment contract, run against every back-end that executes python
// (the per-run bubblewrap sandbox and the zygote): hostile programs, each
// property its own case. Nothing here asserts on elapsed time.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import type { RunSpec, Runner } from '../../../core/runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';

const never = new AbortController().signal;
// Unique per call and per test process: a sleep duration (900-998 s) whose decimals name this run.
let markerSeq = 0;
/** A `sleep` argument that names one test run, so the host can look for survivors. */
export const marker = () => `${900 + (++markerSeq % 99)}.${process.pid}${String(markerSeq).padStart(4, '0')}`;

/** A python RunSpec with containment-test limits. */
export function pySpec(code: string, extra: Partial<RunSpec> = {}): RunSpec {
  return testRunSpec('python', code, { runTimeoutMs: 5_000, memoryLimitMb: 256, ...extra });
}

/** Host processes whose command line contains `needle`. */
export function hostProcessesWith(needle: string): string[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return cmd.includes(needle) && !cmd.includes('vitest') ? [`${pid}: ${cmd}`] : [];
      } catch {
        return [];
      }
    });
}

/** Registers the python containment cases (call inside a describe). */
export function pythonContainmentCases(runner: () => Runner): void {
  const run = (code: string, extra: Partial<RunSpec> = {}) => runner().run(pySpec(code, extra), never);

  it('caps processes: forks fail with EAGAIN well before the host notices', async () => {
    const code =
      'import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print(n, e.errno)';
    const out = await run(code);
    const [forks, errno] = (out.run_result?.stdout ?? '').trim().split(' ').map(Number);
    expect(errno).toBe(11);
    expect(forks).toBeLessThan(64);
  });

  it('flags a memory bomb beyond memoryLimitMb, and a run within it is not flagged', async () => {
    const big = await run('x = bytearray(1024 ** 3)');
    expect(big.run_result).toMatchObject({ status: 'Finished', return_code: 1, memory_limit_exceeded: true });
    expect(big.run_result?.stderr).toContain('MemoryError');
    const ok = await run('x = bytearray(64 * 1024 ** 2); print(len(x))');
    expect(ok.run_result).toMatchObject({ stdout: '67108864\n', memory_limit_exceeded: false });
  });

  it('stops an infinite loop at run_timeout with TimeLimitExceeded, children included', async () => {
    const m = marker();
    const code = `import subprocess\nsubprocess.Popen(['sleep', '${m}'])\nprint("start", flush=True)\nwhile True: pass`;
    // Long enough for a loaded host to start python and print before the limit.
    const out = await run(code, { runTimeoutMs: 3000 });
    expect(out.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null, stdout: 'start\n' });
    expect(out.run_result?.execution_time).toBeGreaterThanOrEqual(3);
    expect(hostProcessesWith(m)).toEqual([]);
  });

  it("cannot reach its supervisor's channels through /proc", async () => {
    const code =
      'import os\nfor fd in range(3, 12):\n    try:\n        os.write(os.open(f"/proc/{os.getppid()}/fd/{fd}", os.O_WRONLY), b"R 0\\n"); print("forged", fd)\n    except OSError as e:\n        pass\nwhile True: pass';
    const out = await run(code, { runTimeoutMs: 1000 });
    expect(out.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    expect(out.run_result?.stdout).not.toContain('forged');
  });

  it('leaves nothing behind when the caller aborts', async () => {
    const m = marker();
    const ac = new AbortController();
    const pending = runner().run(pySpec(`import subprocess, time\nsubprocess.Popen(['sleep', '${m}'])\nprint('up', flush=True)\ntime.sleep(${m})`), ac.signal);
    // Abort once the program is certainly running: its child shows up on the host.
    while (hostProcessesWith(m).length === 0) await new Promise((r) => setImmediate(r));
    ac.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect(hostProcessesWith(m)).toEqual([]);
  });

  it('kills background and daemonised children when the run returns', async () => {
    const [m1, m2] = [marker(), marker()];
    const code = `import os, subprocess\nsubprocess.Popen(['sleep', '${m1}'])\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execvp('sleep', ['sleep', '${m2}'])\n    os._exit(0)\nprint('spawned')`;
    const out = await run(code);
    expect(out.run_result?.stdout).toBe('spawned\n');
    expect(hostProcessesWith(m1)).toEqual([]);
    expect(hostProcessesWith(m2)).toEqual([]);
  });

  it('has no network: a TCP connect to a host port fails', async () => {
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const code = `import socket\nfor host in ['127.0.0.1', '1.1.1.1']:\n    try:\n        socket.create_connection((host, ${port}), timeout=2); print('connected')\n    except OSError as e:\n        print('failed', e.errno)`;
    const out = await run(code);
    server.close();
    expect(out.run_result?.stdout).not.toContain('connected');
    expect(out.run_result?.stdout).toContain('failed');
    expect(connections).toBe(0);
  });

  it('has its own loopback, up, and localhost resolves to it (a program may serve and query itself)', async () => {
    const code = [
      'import socket, threading',
      'srv = socket.create_server(("localhost", 0)); port = srv.getsockname()[1]',
      'threading.Thread(target=lambda: srv.accept()[0].sendall(b"pong"), daemon=True).start()',
      'c = socket.create_connection(("localhost", port), timeout=2); print(c.recv(4).decode(), socket.gethostbyname("localhost"))',
      'print(open("/etc/hosts").read().split()[:2])',
    ].join('\n');
    const out = await run(code);
    expect(out.run_result?.stderr).toBe('');
    expect(out.run_result?.stdout).toBe("pong 127.0.0.1\n['127.0.0.1', 'localhost']\n");
  });

  it('fetches absolute paths in its writable areas (/mnt too, as SandboxFusion), and nothing from elsewhere', async () => {
    const code =
      'import os\nopen("/tmp/abs.txt", "w").write("t")\nopen("/dev/shm/s.txt", "w").write("s")\nopen("rel.txt", "w").write("r")\nopen("/mnt/b", "w").write("m")';
    const out = await run(code, { fetchFiles: ['/tmp/abs.txt', '/dev/shm/s.txt', '/tmp/work/rel.txt', '/etc/passwd', '/usr/bin/python3', '/mnt/b'] });
    expect(out.run_result?.return_code).toBe(0);
    expect(out.files).toEqual({ '/tmp/abs.txt': btoa('t'), '/dev/shm/s.txt': btoa('s'), '/tmp/work/rel.txt': btoa('r'), '/mnt/b': btoa('m') });
  });

  it('keeps writes outside the work dir off the host', async () => {
    const m = marker();
    const targets = [`/tmp/x-${m}`, `/work/x-${m}`, `/root/x-${m}`, `/usr/x-${m}`, `/etc/x-${m}`, `/x-${m}`, `/dev/shm/x-${m}`, `../../x-${m}`];
    const code = `for p in ${JSON.stringify(targets)}:\n    try:\n        open(p, 'w').write('pwned'); print('wrote', p)\n    except OSError as e:\n        print('denied', p, e.errno)`;
    const out = await run(code);
    expect(out.run_result?.stdout).toContain(`wrote /tmp/x-${m}`); // the private tmpfs
    expect(out.run_result?.stdout).toContain(`denied /usr/x-${m}`);
    for (const p of [...targets, `/tmp/work/x-${m}`, `/x-${m}`]) expect(existsSync(p.replace('../../', '/tmp/'))).toBe(false);
    expect(existsSync(`/dev/shm/x-${m}`)).toBe(false);
  });

  it("cannot see the service's environment", async () => {
    const secret = `hunter2-${marker()}`;
    process.env.SANDBOX_TEST_SECRET = secret;
    try {
      const code =
        'import os, glob\nprint(dict(os.environ))\nfor p in ["/proc/1/environ", f"/proc/{os.getppid()}/environ", *glob.glob("/proc/*/environ")]:\n    try: print(p, open(p, "rb").read())\n    except OSError as e: print(p, "denied", e.errno)';
      const out = await run(code);
      expect(out.run_result?.stdout).toContain("'PATH'");
      expect(out.run_result?.stdout).not.toContain(secret);
      expect(out.run_result?.stdout).not.toContain('SANDBOX_TEST_SECRET');
    } finally {
      delete process.env.SANDBOX_TEST_SECRET;
    }
  });

  it('runs as an unprivileged uid without capabilities, in its own pid and uts namespaces', async () => {
    const code =
      'import os, socket\nst = dict(l.split(":\\t") for l in open("/proc/self/status").read().splitlines() if ":\\t" in l)\nprint(os.getuid(), st["CapEff"].strip(), st["CapPrm"].strip(), st["CapBnd"].strip(), st["NoNewPrivs"].strip())\nprint(sum(d.isdigit() for d in os.listdir("/proc")), socket.gethostname())';
    const out = await run(code);
    const [ids, ns] = (out.run_result?.stdout ?? '').trim().split('\n');
    expect(ids).toBe('65534 0000000000000000 0000000000000000 0000000000000000 1');
    const [procs, host] = (ns ?? '').split(' ');
    expect(Number(procs)).toBeLessThan(5);
    expect(host).toBe('sandbox');
  });

  it('cannot create user namespaces (no way to regain capabilities)', async () => {
    const code =
      'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nfor name, flag in [("user", 0x10000000), ("mount", 0x20000), ("net", 0x40000000)]:\n    print(name, libc.unshare(flag), ctypes.get_errno())';
    const out = await run(code);
    const lines = (out.run_result?.stdout ?? '').trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/^\w+ -1 (1|28)$/); // EPERM or ENOSPC (max_user_namespaces = 0)
  });

  it('starts with only stdin, stdout and stderr open', async () => {
    const out = await run('import os\nprint(sorted(int(f) for f in os.listdir("/proc/self/fd")))');
    // listdir itself holds one more fd while it reads the directory.
    expect(JSON.parse((out.run_result?.stdout ?? '').trim()).slice(0, 3)).toEqual([0, 1, 2]);
    expect(JSON.parse((out.run_result?.stdout ?? '').trim()).length).toBeLessThanOrEqual(4);
  });

  it('gives each run a fresh /tmp and /dev/shm: nothing from an earlier run is visible', async () => {
    const m = marker();
    const first = await run(
      `open('/tmp/leak-${m}', 'w').write('x'); open('/dev/shm/leak-${m}', 'w').write('x'); open('leak-${m}', 'w').write('x'); print('ok')`,
    );
    expect(first.run_result?.stdout).toBe('ok\n');
    for (let i = 0; i < 3; i++) {
      const later = await run(`import os\nprint([p for p in ['/tmp/leak-${m}', '/dev/shm/leak-${m}', 'leak-${m}'] if os.path.exists(p)])`);
      expect(later.run_result?.stdout).toBe('[]\n');
    }
  });

  it('caps 200 MB of output, keeps draining, and says so', async () => {
    const code = 'import sys\nb = b"x" * (1 << 20)\nfor _ in range(200): sys.stdout.buffer.write(b)\nsys.stderr.write("done")';
    const out = await run(code, { maxOutputBytes: 1 << 20, runTimeoutMs: 20_000 });
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, output_truncated: true, stderr: 'done' });
    expect(out.run_result?.stdout).toHaveLength(1 << 20);
    expect(out.notes).toContain('stdout truncated at 1048576 bytes (209715200 bytes written)');
  }, 30_000);

  it('still runs hello world normally afterwards', async () => {
    const out = await run('print("hello")');
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello\n', stderr: '' });
  });
}
