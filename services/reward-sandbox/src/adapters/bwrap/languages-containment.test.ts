// The containment contract per language family, on the runtimes that bring
// their own machinery (the JVM's threads and reservations, Go's and Rust's
// runtimes, an interpreter): no network, nothing written outside the sandbox,
// killed at the deadline, and a memory bomb flagged memory_limit_exceeded.

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../core/runner.ts';
import { testRunSpec } from '../../core/run-spec.test-support.ts';
import { BwrapRunner } from '../bwrap-runner.ts';
import { marker } from '../python-containment.test-support.ts';

const runner = new BwrapRunner({ cgroups: false });
afterAll(() => runner.close());
const never = new AbortController().signal;
const run = (language: string, code: string, extra: Partial<RunSpec> = {}) =>
  runner.run(testRunSpec(language, code, { compileTimeoutMs: 30_000, runTimeoutMs: 5_000, memoryLimitMb: 256, ...extra }), never);

/** Hostile programs of one language: each prints one line saying what happened. */
interface Hostile {
  /** Connects to 1.1.1.1:53 over TCP; prints `blocked` when that fails. */
  connect: string;
  /** Creates the file named by `PATH` (replaced); prints `blocked` when that fails. */
  writeHost: string;
  /** Never ends. */
  spin: string;
  /** Allocates without bound. */
  bomb?: string;
}

const HOSTILE: Record<string, Hostile> = {
  java: {
    connect: 'import java.net.*;\npublic class Main { public static void main(String[] a) { try (Socket s = new Socket()) { s.connect(new InetSocketAddress("1.1.1.1", 53), 2000); System.out.println("connected"); } catch (Exception e) { System.out.println("blocked"); } } }',
    writeHost: 'import java.nio.file.*;\npublic class Main { public static void main(String[] a) { try { Files.writeString(Path.of("PATH"), "x"); System.out.println("written"); } catch (Exception e) { System.out.println("blocked"); } } }',
    spin: 'public class Main { public static void main(String[] a) { long n = 0; for (;;) n++; } }',
    bomb: 'import java.util.*;\npublic class Main { public static void main(String[] a) { List<long[]> l = new ArrayList<>(); for (;;) l.add(new long[1 << 17]); } }',
  },
  rust: {
    connect: 'fn main() { let a = "1.1.1.1:53".parse().unwrap(); match std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(2)) { Ok(_) => println!("connected"), Err(_) => println!("blocked") } }',
    writeHost: 'fn main() { match std::fs::write("PATH", "x") { Ok(_) => println!("written"), Err(_) => println!("blocked") } }',
    spin: 'fn main() { let mut n: u64 = 1; loop { n = n.wrapping_mul(3); if n == 0 { println!("{}", n); } } }',
    bomb: 'fn main() { let mut v: Vec<Vec<u8>> = Vec::new(); loop { v.push(vec![1u8; 1 << 20]); } }',
  },
  go: {
    connect: 'package main\nimport ("fmt"; "net"; "time")\nfunc main() { if _, err := net.DialTimeout("tcp", "1.1.1.1:53", 2*time.Second); err != nil { fmt.Println("blocked") } else { fmt.Println("connected") } }',
    writeHost: 'package main\nimport ("fmt"; "os")\nfunc main() { if err := os.WriteFile("PATH", []byte("x"), 0o644); err != nil { fmt.Println("blocked") } else { fmt.Println("written") } }',
    spin: 'package main\nfunc main() { n := 0; for { n++ } }',
  },
  php: {
    connect: '<?php $s = @fsockopen("1.1.1.1", 53, $e, $m, 2); echo $s ? "connected\\n" : "blocked\\n";',
    writeHost: '<?php echo @file_put_contents("PATH", "x") === false ? "blocked\\n" : "written\\n";',
    spin: '<?php for (;;) {}',
  },
  ruby: {
    connect: 'require "socket"\nbegin; Socket.tcp("1.1.1.1", 53, connect_timeout: 2); puts "connected"; rescue StandardError; puts "blocked"; end',
    writeHost: 'begin; File.write("PATH", "x"); puts "written"; rescue StandardError; puts "blocked"; end',
    spin: 'loop {}',
  },
};

for (const [language, h] of Object.entries(HOSTILE)) {
  describe.skipIf(!runner.languages().includes(language))(`${language} containment`, () => {
    it('has no network', async () => {
      const out = await run(language, h.connect);
      expect(out.run_result?.stdout).toBe('blocked\n');
    }, 60_000);

    it('cannot write to the host', async () => {
      const path = `/tmp/escape-${language}-${marker()}`;
      const out = await run(language, h.writeHost.replace('PATH', path.replace('/tmp/', '/usr/')));
      expect(out.run_result?.stdout).toBe('blocked\n');
      expect(existsSync(path.replace('/tmp/', '/usr/'))).toBe(false);
    }, 60_000);

    it('is killed at the deadline', async () => {
      const out = await run(language, h.spin, { runTimeoutMs: 1_000 });
      expect(out.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    }, 60_000);

    it.skipIf(h.bomb === undefined)('flags a memory bomb memory_limit_exceeded', async () => {
      const out = await run(language, h.bomb ?? '', { memoryLimitMb: 128 });
      expect(out.run_result?.return_code).not.toBe(0);
      expect(out.run_result?.memory_limit_exceeded).toBe(true);
    }, 60_000);
  });
}

describe.skipIf(!runner.languages().includes('go_test'))('go_test', () => {
  it('runs `go test` on the code as a _test.go file', async () => {
    const pass = await run('go_test', 'package main\nimport "testing"\nfunc TestAdd(t *testing.T) { if 1+1 != 2 { t.Fatal("math") } }', { runTimeoutMs: 30_000 });
    expect(pass.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(pass.run_result?.stdout).toMatch(/^ok\s/m);
    const fail = await run('go_test', 'package main\nimport "testing"\nfunc TestAdd(t *testing.T) { t.Fatal("wrong") }', { runTimeoutMs: 30_000 });
    expect(fail.run_result?.return_code).toBe(1);
    expect(fail.run_result?.stdout).toContain('wrong');
  }, 90_000);
});
