// Per-language programs for the language tests: hello world, a stdin echo, a
// runtime error exiting with 3, and for compiled languages a compile error.
// Each language lists the toolchain it needs, so a missing one skips by name.

/** The sample programs of one language. */
export interface LanguagePrograms {
  /** What to install when the language is missing (the skip message names it). */
  toolchain: string;
  /** How to install it, when not `apt-get install <toolchain>`. */
  install?: string;
  /** Prints `hello` and a newline. */
  hello: string;
  /** Copies stdin to stdout. */
  echo: string;
  /** Exits with status 3 (or `exitCode`, for languages that cannot choose theirs). */
  exit3: string;
  /** The status `exit3` ends with when not 3. */
  exitCode?: number;
  /** Does not compile (compiled languages only). */
  compileError?: string;
}

export const PROGRAMS: Readonly<Record<string, LanguagePrograms>> = {
  java: {
    toolchain: 'openjdk-17-jdk-headless',
    hello: 'public class Main { public static void main(String[] a) { System.out.println("hello"); } }',
    echo: 'import java.io.*;\npublic class Main { public static void main(String[] a) throws IOException { System.in.transferTo(System.out); } }',
    exit3: 'public class Main { public static void main(String[] a) { System.exit(3); } }',
    compileError: 'public class Main { public static void main(String[] a) { int x = "s"; } }',
  },
  go: {
    toolchain: 'golang-go',
    hello: 'package main\nimport "fmt"\nfunc main() { fmt.Println("hello") }',
    echo: 'package main\nimport ("io"; "os")\nfunc main() { io.Copy(os.Stdout, os.Stdin) }',
    exit3: 'package main\nimport "os"\nfunc main() { os.Exit(3) }',
    compileError: 'package main\nfunc main() { var x int = "s" }',
  },
  rust: {
    toolchain: 'rustc',
    hello: 'fn main() { println!("hello"); }',
    echo: 'use std::io::*;\nfn main() { copy(&mut stdin(), &mut stdout()).unwrap(); }',
    exit3: 'fn main() { std::process::exit(3); }',
    compileError: 'fn main() { let x: i32 = "s"; }',
  },
  php: {
    toolchain: 'php-cli',
    hello: 'echo "hello\\n";',
    echo: '<?php echo stream_get_contents(STDIN);',
    exit3: '<?php exit(3);',
  },
  ruby: { toolchain: 'ruby', hello: 'puts "hello"', echo: 'print STDIN.read', exit3: 'exit 3' },
  perl: { toolchain: 'perl', hello: 'print "hello\\n";', echo: 'print while <STDIN>;', exit3: 'exit 3;' },
  lua: { toolchain: 'lua5.4', hello: 'print("hello")', echo: 'io.write(io.read("a"))', exit3: 'os.exit(3)' },
  sql: {
    toolchain: 'sqlite3',
    hello: "SELECT 'hello';",
    // sqlite3 reads the code from its file, so stdin is not the program's input; the echo is a query instead.
    echo: "CREATE TABLE t(x); INSERT INTO t VALUES ('a'), ('b'); SELECT x FROM t;",
    exit3: 'SELECT * FROM no_such_table;',
    // sqlite3 has one error status.
    exitCode: 1,
  },
  R: { toolchain: 'r-base-core', hello: 'cat("hello\\n")', echo: 'cat(readLines(file("stdin")), sep = "\\n")', exit3: 'quit(status = 3)' },
  csharp: {
    toolchain: 'mono-mcs mono-runtime',
    hello: 'using System;\nclass Program { static void Main() { Console.WriteLine("hello"); } }',
    echo: 'using System;\nclass Program { static void Main() { Console.Write(Console.In.ReadToEnd()); } }',
    exit3: 'class Program { static int Main() { return 3; } }',
    compileError: 'class Program { static void Main() { int x = "s"; } }',
  },
  D_ut: {
    toolchain: 'gdc',
    hello: 'import std.stdio;\nvoid main() { writeln("hello"); }',
    echo: 'import std.stdio;\nvoid main() { foreach (line; stdin.byLine(KeepTerminator.yes)) write(line); }',
    exit3: 'import core.stdc.stdlib;\nvoid main() { exit(3); }',
    compileError: 'void main() { int x = "s"; }',
  },
  verilog: {
    toolchain: 'iverilog',
    hello: 'module tb; initial begin $display("hello"); $finish; end endmodule',
    // $fgetc on the STDIN descriptor (32\'h8000_0000).
    echo: 'module tb; integer c; initial begin c = $fgetc(32\'h8000_0000); while (c != -1) begin $write("%c", c); c = $fgetc(32\'h8000_0000); end $finish; end endmodule',
    // vvp's status is 0, or 1 after $fatal: a simulation cannot pick its exit code.
    exit3: 'module tb; initial $fatal(1, "three"); endmodule',
    exitCode: 1,
    compileError: 'module tb; initial begin $display("x") end endmodule',
  },
  racket: {
    toolchain: 'racket',
    hello: '#lang racket\n(displayln "hello")',
    echo: '#lang racket\n(copy-port (current-input-port) (current-output-port))',
    exit3: '#lang racket\n(exit 3)',
  },
  scala: {
    toolchain: 'scala',
    hello: 'object Main { def main(args: Array[String]): Unit = println("hello") }',
    echo: 'object Echo { def main(args: Array[String]): Unit = { Iterator.continually(System.in.read()).takeWhile(_ >= 0).foreach(b => System.out.write(b)); System.out.flush() } }',
    exit3: 'object Main { def main(args: Array[String]): Unit = sys.exit(3) }',
    compileError: 'object Main { def main(args: Array[String]): Unit = { val x: Int = "s" } }',
  },
  // A test file: jest prints its own report on stderr, so each test writes to stdout itself.
  jest: {
    toolchain: 'jest (runtime/node-packages)',
    install: 'make deps, which runs npm ci in services/reward-sandbox/runtime/node-packages',
    hello: 'test("hello", () => { process.stdout.write("hello\\n"); });',
    echo: 'test("echo", () => { process.stdout.write(require("fs").readFileSync(0)); });',
    exit3: 'test("exit", () => { process.exit(3); });',
  },
  kotlin_script: {
    toolchain: 'kotlin',
    hello: 'println("hello")',
    echo: 'generateSequence(::readLine).forEach(::println)',
    exit3: 'kotlin.system.exitProcess(3)',
  },
};
