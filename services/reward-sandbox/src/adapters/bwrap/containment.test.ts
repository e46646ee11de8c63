// Hostile programs against real sandboxes: each containment property is its own
// case. Timing is asserted only as generous upper bounds that cannot flake.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../core/runner.ts';
import { BwrapRunner } from '../bwrap-runner.ts';
import { testRunSpec } from '../../core/run-spec.test-support.ts';

const runner = new BwrapRunner({ nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;
// Unique per call and per test process: a sleep duration (900-998 s) whose decimals name this run.
let markerSeq = 0;
const marker = () => `${900 + (++markerSeq % 99)}.${process.pid}${String(markerSeq).padStart(4, '0')}`;

function spec(language: string, code: string, extra: Partial<RunSpec> = {}): RunSpec {
  return testRunSpec(language, code, { compileTimeoutMs: 20_000, runTimeoutMs: 5_000, memoryLimitMb: 256, ...extra });
}

/** Host processes whose command line contains `needle`. */
function hostProcessesWith(needle: string): string[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return cmd.includes(needle) && !cmd.includes('vitest') ? [`${pid}: ${cmd}`] : [];
    } catch {
      return [];
    }
  });
}

describe.skipIf(!runner.languages().includes('python'))('bwrap containment', () => {
  it('caps processes: forks fail with EAGAIN well before the host notices', async () => {
    const code = 'import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print(n, e.errno)';
    const out = await runner.run(spec('python', code), never);
    const [forks, errno] = (out.run_result?.stdout ?? '').trim().split(' ').map(Number);
    expect(errno).toBe(11);
    expect(forks).toBeLessThan(64);
  });

  it('survives a classic bash fork bomb and leaves nothing behind', async () => {
    const m = `bomb-${marker()}`; // $0 of every fork, so the host can look for survivors
    const out = await runner.run(spec('bash', `exec bash -c ':(){ :|:& };:' ${m}`, { runTimeoutMs: 1500 }), never);
    expect(out.run_result).not.toBeNull();
    expect(hostProcessesWith(m)).toEqual([]);
  }, 15_000);

  it('flags a memory bomb beyond memoryLimitMb and stays up', async () => {
    const big = await runner.run(spec('python', 'x = bytearray(1024 ** 3)'), never);
    expect(big.run_result).toMatchObject({ status: 'Finished', return_code: 1, memory_limit_exceeded: true });
    expect(big.run_result?.stderr).toContain('MemoryError');
    const grow = await runner.run(spec('cpp', '#include <vector>\nint main() { std::vector<std::vector<char>> v; for (;;) v.emplace_back(1 << 20, 1); }'), never);
    expect(grow.run_result?.memory_limit_exceeded).toBe(true);
    expect(grow.run_result?.return_code).not.toBe(0);
    if (runner.languages().includes('go')) {
      const go = await runner.run(spec('go', 'package main\nfunc main() { var a [][]byte; for { b := make([]byte, 1<<20); for i := range b { b[i] = 1 }; a = append(a, b) } }'), never);
      expect(go.run_result?.memory_limit_exceeded).toBe(true);
    }
    const ok = await runner.run(spec('python', 'x = bytearray(64 * 1024 ** 2); print(len(x))'), never);
    expect(ok.run_result).toMatchObject({ stdout: '67108864\n', memory_limit_exceeded: false });
  }, 30_000);

  it('stops an infinite loop at run_timeout with TimeLimitExceeded, children included', async () => {
    const m = marker();
    const started = performance.now();
    const code = `import subprocess\nsubprocess.Popen(['sleep', '${m}'])\nprint("start", flush=True)\nwhile True: pass`;
    const out = await runner.run(spec('python', code, { runTimeoutMs: 1000 }), never);
    expect(out.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null, stdout: 'start\n' });
    expect(out.run_result?.execution_time).toBeGreaterThanOrEqual(1);
    expect(performance.now() - started).toBeLessThan(8000);
    expect(hostProcessesWith(m)).toEqual([]);
  });

  it('cannot fake an early finish through the report channel', async () => {
    const code = 'import os\ntry:\n    fd = os.open(f"/proc/{os.getppid()}/fd/3", os.O_WRONLY); os.write(fd, b"R 0\\n"); print("forged")\nexcept OSError as e:\n    print("refused", e.errno)\nwhile True: pass';
    const out = await runner.run(spec('python', code, { runTimeoutMs: 1000 }), never);
    expect(out.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
  });

  it('leaves nothing behind when the caller aborts', async () => {
    const m = marker();
    const ac = new AbortController();
    const run = runner.run(spec('bash', `sleep ${m} & sleep ${m}`), ac.signal);
    setTimeout(() => ac.abort(new Error('cancelled')), 300);
    await expect(run).rejects.toThrow('cancelled');
    expect(hostProcessesWith(m)).toEqual([]);
  });

  it('kills background and daemonised children when the run returns', async () => {
    const [m1, m2] = [marker(), marker()];
    const code = `import os, subprocess\nsubprocess.Popen(['sleep', '${m1}'])\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execvp('sleep', ['sleep', '${m2}'])\n    os._exit(0)\nprint('spawned')`;
    const out = await runner.run(spec('python', code), never);
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
    const out = await runner.run(spec('python', code), never);
    server.close();
    expect(out.run_result?.stdout).not.toContain('connected');
    expect(out.run_result?.stdout).toContain('failed');
    expect(connections).toBe(0);
  });

  it('keeps writes outside the work dir off the host', async () => {
    const m = marker();
    const targets = [`/tmp/x-${m}`, `/work/x-${m}`, `/root/x-${m}`, `/usr/x-${m}`, `/etc/x-${m}`, `/x-${m}`, `/dev/shm/x-${m}`, `../../x-${m}`];
    const code = `for p in ${JSON.stringify(targets)}:\n    try:\n        open(p, 'w').write('pwned'); print('wrote', p)\n    except OSError as e:\n        print('denied', p, e.errno)`;
    const out = await runner.run(spec('python', code), never);
    expect(out.run_result?.stdout).toContain(`wrote /tmp/x-${m}`); // the private tmpfs
    expect(out.run_result?.stdout).toContain(`denied /usr/x-${m}`);
    for (const p of [...targets, `/tmp/work/x-${m}`, `/x-${m}`]) expect(existsSync(p.replace('../../', '/tmp/'))).toBe(false);
    expect(existsSync(`/dev/shm/x-${m}`)).toBe(false);
  });

  it("cannot see the service's environment", async () => {
    const secret = `hunter2-${marker()}`;
    process.env.SANDBOX_TEST_SECRET = secret;
    try {
      const code = 'import os, glob\nprint(dict(os.environ))\nfor p in ["/proc/1/environ", f"/proc/{os.getppid()}/environ", *glob.glob("/proc/*/environ")]:\n    try: print(p, open(p, "rb").read())\n    except OSError as e: print(p, "denied", e.errno)';
      const out = await runner.run(spec('python', code), never);
      expect(out.run_result?.stdout).toContain("'PATH'");
      expect(out.run_result?.stdout).not.toContain(secret);
      expect(out.run_result?.stdout).not.toContain('SANDBOX_TEST_SECRET');
    } finally {
      delete process.env.SANDBOX_TEST_SECRET;
    }
  });

  it('runs as an unprivileged uid with its own pid namespace', async () => {
    const out = await runner.run(spec('bash', 'id -u; ls /proc | grep -c "^[0-9]"'), never);
    const [uid, procs] = (out.run_result?.stdout ?? '').trim().split('\n').map(Number);
    expect(uid).toBe(65534);
    expect(procs).toBeLessThan(10);
  });

  it('caps 200 MB of output, keeps draining, and says so', async () => {
    const code = 'import sys\nb = b"x" * (1 << 20)\nfor _ in range(200): sys.stdout.buffer.write(b)\nsys.stderr.write("done")';
    const out = await runner.run(spec('python', code, { maxOutputBytes: 1 << 20, runTimeoutMs: 20_000 }), never);
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, output_truncated: true, stderr: 'done' });
    expect(out.run_result?.stdout).toHaveLength(1 << 20);
    expect(out.notes).toContain('stdout truncated at 1048576 bytes (209715200 bytes written)');
  }, 30_000);

  it('caps the writable work dir (tmpfs size)', async () => {
    const small = new BwrapRunner({ tmpMb: 16, cgroups: false });
    const out = await small.run(spec('bash', 'head -c 64M /dev/zero > big; echo rc=$?; ls -s big'), never);
    expect(out.run_result?.stdout).toMatch(/rc=1/);
    expect(out.run_result?.stderr).toContain('No space left on device');
  });
});
