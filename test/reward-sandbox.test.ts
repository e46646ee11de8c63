import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { ScoreResponse, requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';
import { extractSandboxFusionClient, verlAvailable } from './support/verl.ts';

const SECRET = 'sandbox-test-secret-5d1f';
let nats: NatsServer;
let sandbox: ServiceProcess;
let rules: ServiceProcess;
let nc: NatsConnection;
let hostPort: Server;

beforeAll(async () => {
  nats = await startNatsServer();
  [sandbox, rules] = await Promise.all([
    startService('reward-sandbox', { NATS_URL: nats.url, RL_TEST_SECRET: SECRET, MAX_OUTPUT_BYTES: String(1024 * 1024) }),
    startService('reward-rules', { NATS_URL: nats.url }),
  ]);
  nc = await connectTestClient(nats.url);
  hostPort = createServer((s) => s.end('reached the host\n')).listen(0, '127.0.0.1');
});
afterAll(async () => {
  hostPort?.close();
  await nc?.close();
  await Promise.all([sandbox?.stop(), rules?.stop()]);
  await nats?.stop();
});

interface RunCodeResponse {
  status: string;
  message: string;
  run_result: {
    status: string;
    return_code: number | null;
    stdout: string | null;
    stderr: string | null;
    memory_limit_exceeded?: boolean;
    output_truncated?: boolean;
  } | null;
  compile_result: { status: string; return_code: number | null; stderr: string | null } | null;
  files: Record<string, string>;
}
const runCode = async (body: Record<string, unknown>) => {
  const res = await fetch(`${sandbox.baseUrl}/run_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { http: res.status, body: (await res.json()) as RunCodeResponse };
};
const py = (code: string, extra: Record<string, unknown> = {}) => runCode({ language: 'python', code, ...extra });

describe('reward-sandbox /run_code (SandboxFusion contract)', () => {
  it('runs hello world in python with SandboxFusion’s response shape', async () => {
    const { http, body } = await py('print("hello")');
    expect(http).toBe(200);
    expect(body).toMatchObject({ status: 'Success', message: '', compile_result: null, files: {} });
    expect(body.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello\n', stderr: '' });
  });

  it('passes stdin, reports non-zero exits as Failed, and compiles C++', async () => {
    expect((await py('import sys; print(sys.stdin.read().upper())', { stdin: 'abc' })).body.run_result?.stdout).toBe('ABC\n');
    expect((await py('raise SystemExit(3)')).body).toMatchObject({ status: 'Failed', run_result: { return_code: 3 } });
    const cpp = await runCode({ language: 'cpp', code: '#include <cstdio>\nint main(){int a;scanf("%d",&a);printf("%d\\n",a*2);}', stdin: '21' });
    expect(cpp.body).toMatchObject({ status: 'Success', compile_result: { return_code: 0 }, run_result: { stdout: '42\n' } });
    const bad = await runCode({ language: 'cpp', code: 'int main( {' });
    expect(bad.body.status).toBe('Failed');
    expect(bad.body.compile_result?.return_code).not.toBe(0);
  });

  it('runs JavaScript and TypeScript', async () => {
    expect((await runCode({ language: 'nodejs', code: 'console.log([1,2].map(x => x * 3).join(" "))' })).body.run_result?.stdout).toBe('3 6\n');
    expect((await runCode({ language: 'typescript', code: 'const n: number = 7; console.log(n * 6)' })).body.run_result?.stdout).toBe('42\n');
  });

  it('round-trips files and fetch_files', async () => {
    const { body } = await py('open("out.txt","w").write(open("in/data.txt").read()[::-1])', {
      files: { 'in/data.txt': btoa('abc') },
      fetch_files: ['out.txt', 'missing.txt'],
    });
    expect(body.status).toBe('Success');
    expect(atob(body.files['out.txt'] ?? '')).toBe('cba');
    expect(body.files['missing.txt']).toBeUndefined();
  });

  it('answers GET /v1/ping with "pong" as SandboxFusion does', async () => {
    const res = await fetch(`${sandbox.baseUrl}/v1/ping`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('"pong"');
  });

  it('answers a SandboxFusion language this instance cannot run with a 400 naming it, never a 500', async () => {
    const res = await fetch(`${sandbox.baseUrl}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'x', language: 'swift' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('swift');
  });

  it('lists the languages it runs', async () => {
    const res = (await (await fetch(`${sandbox.baseUrl}/v1/languages`)).json()) as { languages: Array<{ language: string }> };
    expect(res.languages.map((l) => l.language)).toEqual(expect.arrayContaining(['python', 'cpp', 'nodejs', 'bash', 'typescript']));
  });

  it('says in /readyz how runs are contained, beside the checks that gate readiness', async () => {
    const res = await fetch(`${sandbox.baseUrl}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      checks: Record<string, boolean>;
      details: { memory_cgroups: string; uid_slots: { size: number; first_uid: number }; problems: string[] };
    };
    expect(body.checks).toMatchObject({ sandbox: true, seccomp: true });
    expect(['none', 'every run', 'python zygote runs']).toContain(body.details.memory_cgroups);
    expect(body.details.uid_slots.size).toBeGreaterThan(0);
    expect(Array.isArray(body.details.problems)).toBe(true);
  });
});

describe('reward-sandbox containment (each attack its own case)', () => {
  it('survives a fork bomb', async () => {
    const { body } = await py('import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass', { run_timeout: 2 });
    expect(body.status).toBe('Failed');
  });

  it('stops a memory bomb beyond memory_limit_MB and says so', async () => {
    const { body } = await py('x = bytearray(512 * 1024 * 1024)\nprint(len(x))', { memory_limit_MB: 128 });
    expect(body.status).toBe('Failed');
    expect(body.run_result?.memory_limit_exceeded).toBe(true);
  });

  it('answers an infinite loop with TimeLimitExceeded', async () => {
    const { body } = await py('while True: pass', { run_timeout: 1 });
    expect(body).toMatchObject({ status: 'Failed', run_result: { status: 'TimeLimitExceeded' } });
  });

  it('leaves no background child running after the response', async () => {
    const marker = 'rl-orphan-marker-91';
    const { body } = await py(
      `import subprocess, sys\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "${marker}"])\nprint("spawned")`,
    );
    expect(body.run_result?.stdout).toBe('spawned\n');
    const alive = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
        } catch {
          return false;
        }
      });
    expect(alive).toEqual([]);
  });

  it('cannot reach the host network: the service port, NATS, or any listener', async () => {
    const ports = [new URL(sandbox.baseUrl).port, String(nats.port), String((hostPort.address() as { port: number }).port)];
    const code = `import socket\nfor p in [${ports.join(',')}]:\n    s = socket.socket()\n    s.settimeout(1)\n    try:\n        s.connect(("127.0.0.1", p)); print("connected", p)\n    except OSError as e:\n        print("blocked", p)`;
    const { body } = await py(code);
    expect(body.run_result?.stdout).not.toContain('connected');
    expect(body.run_result?.stdout?.match(/blocked/g)).toHaveLength(3);
  });

  it('keeps nothing written outside the work dir', async () => {
    const paths = ['/tmp/rl-escape-1', '/root/rl-escape-2', '/work/rl-escape-3', '/etc/rl-escape-4'];
    await py(`for p in ${JSON.stringify(paths)}:\n    try:\n        open(p, "w").write("x")\n    except OSError:\n        pass`);
    for (const p of paths) expect(existsSync(p)).toBe(false);
  });

  it('cannot read the service’s environment', async () => {
    const code =
      'import os, glob\nfound = [k for k, v in os.environ.items() if "' +
      SECRET +
      '" in v]\nfor f in glob.glob("/proc/*/environ"):\n    try:\n        found += ["proc"] if b"' +
      SECRET +
      '" in open(f, "rb").read() else []\n    except OSError:\n        pass\nprint(found)';
    const { body } = await py(code);
    expect(body.run_result?.stdout).toBe('[]\n');
  });

  it('caps 200 MB of output and says the cap in the message', async () => {
    const { body } = await py('import sys\nchunk = "x" * (1 << 20)\nfor _ in range(200):\n    sys.stdout.write(chunk)', { run_timeout: 20 });
    expect(body.run_result?.output_truncated).toBe(true);
    expect(body.run_result?.stdout?.length).toBeLessThanOrEqual(1024 * 1024);
    expect(body.message).toMatch(/truncated/);
  });

  it("rejects file paths with .. and absolute input paths (400); absolute fetch_files read only the sandbox's writable areas", async () => {
    expect((await py('print(1)', { files: { '../escape.txt': btoa('x') } })).http).toBe(400);
    expect((await py('print(1)', { files: { '/tmp/x': btoa('x') } })).http).toBe(400);
    expect((await py('print(1)', { fetch_files: ['/tmp/../etc/passwd'] })).http).toBe(400);
    const abs = await py('open("/tmp/b", "w").write("b")', { fetch_files: ['/etc/passwd', '/tmp/b', '/mnt/b'] });
    expect(abs.http).toBe(200);
    expect(abs.body.files).toEqual({ '/tmp/b': btoa('b') });
  });

  it('rejects huge bodies (413), malformed JSON and unknown languages (400)', async () => {
    const big = await fetch(`${sandbox.baseUrl}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"language":"python","code":"${'x'.repeat(17 * 1024 * 1024)}"}`,
    });
    expect(big.status).toBe(413);
    const malformed = await fetch(`${sandbox.baseUrl}/run_code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"language":' });
    expect(malformed.status).toBe(400);
    const unknown = await runCode({ language: 'cobol', code: 'DISPLAY "HI"' });
    expect(unknown.http).toBe(400);
  });

  it('still answers hello world normally after all of the above', async () => {
    expect((await py('print("still here")')).body).toMatchObject({ status: 'Success', run_result: { stdout: 'still here\n' } });
  });
});

describe('code rewards over NATS and through reward-rules', () => {
  const apps = {
    data_source: 'apps',
    solution_str: 'Here is my solution:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```',
    ground_truth: JSON.stringify({ inputs: ['1 2\n', '3 4\n'], outputs: ['3\n', '7\n'] }),
  };

  it('scores on reward.sandbox.score and mirrors /run_code on sandbox.run_code', async () => {
    const reply = await requestJson(nc, 'reward.sandbox.score', { items: [apps] }, { timeoutMs: 60_000, response: ScoreResponse });
    expect(reply.results[0]).toMatchObject({ score: 1, extra: { passed: 2, total: 2 } });
    const run = (await (
      await nc.request('sandbox.run_code', JSON.stringify({ language: 'python', code: 'print(6*7)' }), { timeout: 60_000 })
    ).json()) as RunCodeResponse;
    expect(run).toMatchObject({ status: 'Success', run_result: { stdout: '42\n' } });
  });

  it('is what reward-rules forwards verl’s code data sources to', async () => {
    const res = await fetch(`${rules.baseUrl}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [apps, { ...apps, solution_str: '```python\nprint(0)\n```' }] }),
    });
    const body = (await res.json()) as ScoreResponse;
    expect(body.results).toEqual([expect.objectContaining({ score: 1 }), expect.objectContaining({ score: 0 })]);
  });
});

describe.skipIf(!verlAvailable())('verl’s own sandbox_fusion client against /run_code', () => {
  it('gets the verdicts SandboxFusion would give', async () => {
    const pythonpath = extractSandboxFusionClient();
    const stdinProblem = { inputs: ['1 2\n', '5 5\n'], outputs: ['3\n', '10\n'] };
    const callProblem = { fn_name: 'add', inputs: ['1\n2', '5\n5'], outputs: ['3', '10'] };
    const cases = [
      { name: 'correct', completion: '```python\na, b = map(int, input().split())\nprint(a + b)\n```', test_cases: stdinProblem },
      { name: 'wrong', completion: '```python\na, b = map(int, input().split())\nprint(a - b)\n```', test_cases: stdinProblem },
      { name: 'crash', completion: '```python\nraise ValueError("no")\n```', test_cases: stdinProblem },
      { name: 'loop', completion: '```python\nwhile True: pass\n```', test_cases: stdinProblem, timeout: 1 },
      { name: 'memory', completion: '```python\nx = bytearray(1 << 30)\nprint(3)\n```', test_cases: stdinProblem, memory_limit_mb: 128 },
      { name: 'call_correct', completion: '```python\ndef add(a, b):\n    return a + b\n```', test_cases: callProblem },
      { name: 'call_wrong', completion: '```python\ndef add(a, b):\n    return a * b\n```', test_cases: callProblem },
      { name: 'as_json_string', completion: '```python\na, b = map(int, input().split())\nprint(a + b)\n```', test_cases: JSON.stringify(stdinProblem) },
    ];
    const child = execFile('/usr/bin/python3', [new URL('./support/verl_sandbox_client.py', import.meta.url).pathname], {
      env: { PYTHONPATH: pythonpath, PATH: '/usr/bin:/bin' },
      timeout: 120_000,
    });
    child.stdin?.end(JSON.stringify({ url: `${sandbox.baseUrl}/run_code`, cases }));
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((res) => child.once('exit', res));
    const results = Object.fromEntries((JSON.parse(out) as Array<{ name: string; score: number; statuses: string[] }>).map((r) => [r.name, r]));
    expect(results.correct).toMatchObject({ score: 1, statuses: ['success', 'success'] });
    expect(results.wrong).toMatchObject({ score: 0, statuses: ['wrong_answer', 'wrong_answer'] });
    expect(results.crash).toMatchObject({ score: 0, statuses: ['runtime_error', 'runtime_error'] });
    expect(results.loop).toMatchObject({ score: 0, statuses: ['timeout', 'timeout'] });
    expect(results.memory?.score).toBe(0);
    expect(results.memory?.statuses.every((s) => s === 'runtime_error')).toBe(true);
    expect(results.call_correct).toMatchObject({ score: 1 });
    expect(results.call_wrong).toMatchObject({ score: 0 });
    expect(results.as_json_string).toMatchObject({ score: 1 });
  });
});
