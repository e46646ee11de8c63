// Per-language programs for the language tests: hello world, a stdin echo, a
// runtime error exiting with 3, and for compiled languages a compile error.
// Each language lists the toolchain it needs, so a missing one skips by name.

/** The sample programs of one language. */
export interface LanguagePrograms {
  /** What to install when the language is missing (the skip message names it). */
  toolchain: string;
  /** Prints `hello` and a newline. */
  hello: string;
  /** Copies stdin to stdout. */
  echo: string;
  /** Exits with status 3. */
  exit3: string;
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
  },
  R: { toolchain: 'r-base-core', hello: 'cat("hello\\n")', echo: 'cat(readLines(file("stdin")), sep = "\\n")', exit3: 'quit(status = 3)' },
};
