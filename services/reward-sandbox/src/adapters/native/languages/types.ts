// The shape of one language's entry in the table (./index.ts): how its code
// file is named, what compiles and runs it, and how its memory failures look.

/** Toolchain paths as seen inside the sandbox (probed at start; absent means unsupported). */
export interface Toolchain {
  python?: string;
  pytest?: boolean;
  bash?: string;
  gxx?: string;
  cppFlags?: string[];
  node?: string;
  /** The npm package dir bound read-only (../bubblewrap/argv.ts SANDBOX_NODE_PACKAGES), when installed. */
  nodePackages?: string;
  /** tsx's CommonJS hook in that dir (`node --require`), which runs typescript as SandboxFusion's tsx does. */
  tsx?: string;
  /** jest's CLI script in that dir. */
  jest?: string;
  go?: string;
  /** Debian's Go library tree (golang-*-dev: testify, ...), a GOPATH entry (/usr/share/gocode). */
  goLibraries?: string;
  java?: string;
  /** Debian's javatuples jar, on java's class path as SandboxFusion bundles it. */
  javatuples?: string;
  javac?: string;
  rustc?: string;
  php?: string;
  ruby?: string;
  perl?: string;
  lua?: string;
  sqlite3?: string;
  rscript?: string;
  mcs?: string;
  mono?: string;
  /** Mono's System.Net.Http assembly is installed (dotnet's implicit usings name its namespace). */
  monoNetHttp?: boolean;
  gdc?: string;
  iverilog?: string;
  vvp?: string;
  racket?: string;
  scala?: string;
  scalac?: string;
  kotlinc?: string;
  /** JUnit's console launcher jar (Debian junit5), run by `java -jar`. */
  junitConsole?: string;
}

/** One command to run inside the sandbox. */
export interface CommandSpec {
  argv: string[];
  env?: Record<string, string>;
}

/** Inputs to the per-language command builders. */
export interface LanguageContext {
  /** The code's file name in the work dir. */
  source: string;
  memoryLimitMb: number;
  tools: Toolchain;
  /** Work-dir-relative paths of the request's input files. */
  inputs: readonly string[];
}

/** A language this runner executes. */
export interface LanguageSpec {
  extension: string;
  /** Ends the code's temp name instead of `.<extension>` (go_test: `_test.go`, which `go test` requires). */
  suffix?: string;
  /** A fixed file name for the code instead of SandboxFusion's `tmpXXXXXXXX.<ext>` (java: `Main.java`). */
  fileName?: string;
  /** Rewrites the code before it is written (php: the opening tag SandboxFusion adds; csharp: what dotnet's project adds). */
  prepareCode?: (code: string, tools: Toolchain) => string;
  /** Whether the probed toolchain can run it. */
  available: (t: Toolchain) => boolean;
  compile?: (c: LanguageContext) => CommandSpec;
  run: (c: LanguageContext) => CommandSpec;
  /** RLIMIT_AS for the run, from the requested memory limit (runtimes that reserve address space get headroom). */
  addressSpaceMb: (memoryLimitMb: number) => number;
  /**
   * For a run step that compiles too (kotlinc -script, go test): the least
   * memory budget of its run cgroup, MiB (../plan/memory-budget.ts), since the compiler
   * is charged with the program there. Default: the requested limit.
   */
  runFloorMb?: number;
  /** Messages a runtime prints when an allocation fails (see ../memory-verdict.ts). */
  memoryMarkers: RegExp[];
}

/** errno ENOMEM's message, printed by many runtimes when mmap/brk fails under RLIMIT_AS. */
export const ENOMEM = /Cannot allocate memory/;
