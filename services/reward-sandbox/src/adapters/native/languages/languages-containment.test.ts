// The containment contract per language family, on the runtimes that bring
// their own machinery (the JVM's threads and reservations, Go's and Rust's
// runtimes, an interpreter): no network, nothing written outside the sandbox,
// killed at the deadline, and a memory bomb flagged memory_limit_exceeded.

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../../core/runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';
import { marker } from '../testing/python-containment.ts';

const runner = new BwrapRunner({ cgroups: false, nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;
const run = (language: string, code: string, extra: Partial<RunSpec> = {}) =>
  runner.run(testRunSpec(language, code, { compileTimeoutMs: 30_000, runTimeoutMs: 5_000, memoryLimitMb: 256, ...extra }), never);

/** Hostile programs of one language: each prints one line saying what happened. */
interface Hostile {
  /** Connects to 1.1.1.1:53 over TCP; prints `blocked` when that fails (absent: the language has no sockets). */
  connect?: string;
  /** Creates the file named by `PATH` (replaced); prints `blocked` when that fails. */
  writeHost: string;
  /** Never ends. */
  spin: string;
  /** Allocates without bound. */
  bomb?: string;
  /** Run timeout for the cases that must finish (default 20 s, far past need on a loaded host; kotlinc compiles inside the run). */
  runTimeoutMs?: number;
  /** Deadline for `spin` (default 1 s; past the start-up, so the program itself is running when killed). */
  spinTimeoutMs?: number;
}

const HOSTILE: Record<string, Hostile> = {
  java: {
    connect:
      'import java.net.*;\npublic class Main { public static void main(String[] a) { try (Socket s = new Socket()) { s.connect(new InetSocketAddress("1.1.1.1", 53), 2000); System.out.println("connected"); } catch (Exception e) { System.out.println("blocked"); } } }',
    writeHost:
      'import java.nio.file.*;\npublic class Main { public static void main(String[] a) { try { Files.writeString(Path.of("PATH"), "x"); System.out.println("written"); } catch (Exception e) { System.out.println("blocked"); } } }',
    spin: 'public class Main { public static void main(String[] a) { long n = 0; for (;;) n++; } }',
    bomb: 'import java.util.*;\npublic class Main { public static void main(String[] a) { List<long[]> l = new ArrayList<>(); for (;;) l.add(new long[1 << 17]); } }',
  },
  rust: {
    connect:
      'fn main() { let a = "1.1.1.1:53".parse().unwrap(); match std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(2)) { Ok(_) => println!("connected"), Err(_) => println!("blocked") } }',
    writeHost: 'fn main() { match std::fs::write("PATH", "x") { Ok(_) => println!("written"), Err(_) => println!("blocked") } }',
    spin: 'fn main() { let mut n: u64 = 1; loop { n = n.wrapping_mul(3); if n == 0 { println!("{}", n); } } }',
    bomb: 'fn main() { let mut v: Vec<Vec<u8>> = Vec::new(); loop { v.push(vec![1u8; 1 << 20]); } }',
  },
  go: {
    connect:
      'package main\nimport ("fmt"; "net"; "time")\nfunc main() { if _, err := net.DialTimeout("tcp", "1.1.1.1:53", 2*time.Second); err != nil { fmt.Println("blocked") } else { fmt.Println("connected") } }',
    writeHost:
      'package main\nimport ("fmt"; "os")\nfunc main() { if err := os.WriteFile("PATH", []byte("x"), 0o644); err != nil { fmt.Println("blocked") } else { fmt.Println("written") } }',
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
  csharp: {
    connect:
      'using System; using System.Net.Sockets;\nclass Program { static void Main() { try { var c = new TcpClient(); if (!c.ConnectAsync("1.1.1.1", 53).Wait(2000)) throw new Exception(); Console.WriteLine("connected"); } catch (Exception) { Console.WriteLine("blocked"); } } }',
    writeHost:
      'using System; using System.IO;\nclass Program { static void Main() { try { File.WriteAllText("PATH", "x"); Console.WriteLine("written"); } catch (Exception) { Console.WriteLine("blocked"); } } }',
    spin: 'class Program { static void Main() { long n = 0; for (;;) n++; } }',
    bomb: 'using System.Collections.Generic;\nclass Program { static void Main() { var l = new List<long[]>(); for (;;) l.Add(new long[1 << 17]); } }',
  },
  D_ut: {
    connect:
      'import core.time, std.socket, std.stdio;\nvoid main() { try { auto s = new TcpSocket(); s.setOption(SocketOptionLevel.SOCKET, SocketOption.SNDTIMEO, dur!"seconds"(2)); s.connect(new InternetAddress("1.1.1.1", 53)); writeln("connected"); } catch (Exception e) { writeln("blocked"); } }',
    writeHost:
      'import std.file, std.stdio;\nvoid main() { try { std.file.write("PATH", "x"); writeln("written"); } catch (Exception e) { writeln("blocked"); } }',
    spin: 'import std.stdio;\nvoid main() { ulong n = 1; while (true) { n = n * 3; if (n == 0) writeln(n); } }',
    bomb: 'void main() { ubyte[][] v; while (true) v ~= new ubyte[1 << 20]; }',
  },
  verilog: {
    writeHost: 'module tb; integer f; initial begin f = $fopen("PATH", "w"); if (f == 0) $display("blocked"); else $display("written"); $finish; end endmodule',
    spin: 'module tb; initial forever #1; endmodule',
  },
  racket: {
    connect: '#lang racket\n(with-handlers ([exn:fail? (lambda (e) (displayln "blocked"))]) (tcp-connect "1.1.1.1" 53) (displayln "connected"))',
    writeHost:
      '#lang racket\n(with-handlers ([exn:fail? (lambda (e) (displayln "blocked"))]) (with-output-to-file "PATH" (lambda () (display "x"))) (displayln "written"))',
    spin: '#lang racket\n(let loop () (loop))',
    bomb: '#lang racket\n(let loop ([l (list)]) (loop (cons (make-bytes 1048576 1) l)))',
  },
  scala: {
    connect:
      'import java.net._\nobject Main { def main(a: Array[String]): Unit = { val s = new Socket(); try { s.connect(new InetSocketAddress("1.1.1.1", 53), 2000); println("connected") } catch { case _: Exception => println("blocked") } } }',
    writeHost:
      'import java.nio.file._\nobject Main { def main(a: Array[String]): Unit = try { Files.write(Paths.get("PATH"), "x".getBytes); println("written") } catch { case _: Exception => println("blocked") } }',
    spin: 'object Main { def main(a: Array[String]): Unit = { var n = 0L; while (true) n += 1 } }',
    bomb: 'object Main { def main(a: Array[String]): Unit = { val l = new java.util.ArrayList[Array[Long]](); while (true) l.add(new Array[Long](1 << 17)) } }',
  },
  // The compiler shares the script's JVM, so its heap is at least 512 MiB whatever the limit.
  kotlin_script: {
    connect:
      'import java.net.*\ntry { Socket().use { it.connect(InetSocketAddress("1.1.1.1", 53), 2000) }; println("connected") } catch (e: Exception) { println("blocked") }',
    writeHost: 'try { java.io.File("PATH").writeText("x"); println("written") } catch (e: Exception) { println("blocked") }',
    spin: 'var n = 0L\nwhile (true) n++',
    bomb: 'val l = ArrayList<LongArray>()\nwhile (true) l.add(LongArray(1 shl 17))',
    runTimeoutMs: 30_000,
    spinTimeoutMs: 8_000,
  },
  // A test file; jest prints its summary on stderr, so the verdict goes straight to stdout.
  jest: {
    connect:
      'test("c", async () => { const net = require("net"); await new Promise((done) => { const s = net.connect(53, "1.1.1.1"); s.on("connect", () => { process.stdout.write("connected\\n"); s.destroy(); done(); }); s.on("error", () => { process.stdout.write("blocked\\n"); done(); }); }); });',
    writeHost:
      'test("w", () => { try { require("fs").writeFileSync("PATH", "x"); process.stdout.write("written\\n"); } catch { process.stdout.write("blocked\\n"); } });',
    spin: 'test("s", () => { for (;;) {} });',
    bomb: 'test("b", () => { const l: number[][] = []; for (;;) l.push(new Array(1e6).fill(1)); });',
    // Past jest's start-up (about a second here), so the test itself is spinning when killed.
    spinTimeoutMs: 5_000,
  },
};

for (const [language, h] of Object.entries(HOSTILE)) {
  describe.skipIf(!runner.languages().includes(language))(`${language} containment`, () => {
    it.skipIf(h.connect === undefined)(
      'has no network',
      async () => {
        const out = await run(language, h.connect ?? '', { runTimeoutMs: h.runTimeoutMs ?? 20_000 });
        expect(out.run_result?.stdout).toBe('blocked\n');
      },
      60_000,
    );

    it('cannot write to the host', async () => {
      const path = `/tmp/escape-${language}-${marker()}`;
      const out = await run(language, h.writeHost.replace('PATH', path.replace('/tmp/', '/usr/')), { runTimeoutMs: h.runTimeoutMs ?? 20_000 });
      expect(out.run_result?.stdout).toBe('blocked\n');
      expect(existsSync(path.replace('/tmp/', '/usr/'))).toBe(false);
    }, 60_000);

    it('is killed at the deadline', async () => {
      const out = await run(language, h.spin, { runTimeoutMs: h.spinTimeoutMs ?? 1_000 });
      expect(out.run_result?.status).toBe('TimeLimitExceeded');
      // Killed at the wall deadline (no return code), or, for a runtime burning CPU on several
      // threads (kotlinc's JVM on a loaded host), at RLIMIT_CPU (deadline + 1 s summed over threads) just before it.
      if (out.run_result?.return_code !== null) expect(out.notes.join('\n')).toMatch(/CPU-time limit/);
    }, 60_000);

    it.skipIf(h.bomb === undefined)(
      'flags a memory bomb memory_limit_exceeded',
      async () => {
        const out = await run(language, h.bomb ?? '', { memoryLimitMb: 128, runTimeoutMs: h.runTimeoutMs ?? 20_000 });
        expect(out.run_result?.return_code).not.toBe(0);
        expect(out.run_result?.memory_limit_exceeded).toBe(true);
      },
      60_000,
    );
  });
}

describe.skipIf(!runner.languages().includes('jest'))('jest workers', () => {
  it('are killed with the run at the deadline', async () => {
    // Two test files: jest forks its two workers (one file runs in-band), each spinning in a test.
    const spin = 'test("s", () => { for (;;) {} });';
    const out = await run('jest', spin, { files: { 'other.test.js': Buffer.from(spin) }, runTimeoutMs: 5_000 });
    expect(out.run_result?.status).toBe('TimeLimitExceeded');
  }, 60_000);
});

describe.skipIf(!runner.languages().includes('go_test'))('go_test', () => {
  it('runs `go test` on the code as a _test.go file', async () => {
    const pass = await run('go_test', 'package main\nimport "testing"\nfunc TestAdd(t *testing.T) { if 1+1 != 2 { t.Fatal("math") } }', {
      runTimeoutMs: 30_000,
    });
    expect(pass.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(pass.run_result?.stdout).toMatch(/^ok\s/m);
    const fail = await run('go_test', 'package main\nimport "testing"\nfunc TestAdd(t *testing.T) { t.Fatal("wrong") }', { runTimeoutMs: 30_000 });
    expect(fail.run_result?.return_code).toBe(1);
    expect(fail.run_result?.stdout).toContain('wrong');
  }, 90_000);
});

describe.skipIf(!runner.languages().includes('D_ut'))('D_ut', () => {
  it('runs the unittest blocks, then not main; a failing one exits 1', async () => {
    const pass = await run('D_ut', 'import std.stdio;\nunittest { assert(1 + 1 == 2); }\nvoid main() { writeln("main ran"); }');
    expect(pass.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(pass.run_result?.stdout).not.toContain('main ran');
    expect(pass.run_result?.stderr).toContain('1 modules passed unittests');
    const fail = await run('D_ut', 'unittest { assert(1 + 1 == 3, "math"); }\nvoid main() {}');
    expect(fail.run_result?.return_code).toBe(1);
    // druntime prints the failed assertion on stdout and the summary on stderr.
    expect(fail.run_result?.stdout).toContain('[unittest] math');
    expect(fail.run_result?.stderr).toContain('1/1 modules FAILED unittests');
  }, 90_000);
});

describe.skipIf(!runner.languages().includes('scala'))('scala', () => {
  it('runs the first `object` as the main class; none is a compile error', async () => {
    const out = await run('scala', 'object Solution { def main(a: Array[String]): Unit = println(Helper.x) }\nobject Helper { val x = 42 }');
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '42\n' });
    const none = await run('scala', 'class Main');
    expect(none.compile_result).toMatchObject({ status: 'Finished', return_code: 1, stderr: 'Object name not found.\n' });
    expect(none.run_result).toBeNull();
  }, 90_000);
});

describe.skipIf(!runner.languages().includes('verilog'))('verilog', () => {
  it('simulates the `tb` module; $fatal exits 1', async () => {
    const out = await run(
      'verilog',
      'module add(input [3:0] a, b, output [4:0] s); assign s = a + b; endmodule\nmodule tb; reg [3:0] a = 9, b = 8; wire [4:0] s; add u(a, b, s); initial begin #1 $display("%0d", s); $finish; end endmodule',
    );
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(out.run_result?.stdout).toMatch(/^17\n/);
    const fatal = await run('verilog', 'module tb; initial $fatal(1, "bad"); endmodule');
    expect(fatal.run_result?.return_code).toBe(1);
  }, 90_000);
});

describe.skipIf(!runner.languages().includes('junit'))('junit', () => {
  const test = (assertion: string) =>
    `import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\npublic class Adder { static int add(int a, int b) { return a + b; } }\nclass AdderTest { @Test void adds() { ${assertion} } }`;
  it('compiles `<public class>.java` and runs the JUnit console launcher on the class path', async () => {
    const pass = await run('junit', test('assertEquals(4, Adder.add(2, 2));'), { runTimeoutMs: 30_000 });
    expect(pass.compile_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(pass.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(pass.run_result?.stdout).toMatch(/1 tests successful/);
    const fail = await run('junit', test('assertEquals(5, Adder.add(2, 2));'), { runTimeoutMs: 30_000 });
    expect(fail.run_result?.return_code).toBe(1);
    expect(fail.run_result?.stdout).toMatch(/1 tests failed/);
    const broken = await run('junit', test('int x = "s";'));
    expect(broken.compile_result?.return_code).not.toBe(0);
    expect(broken.run_result).toBeNull();
  }, 120_000);
});
