// How each native language is compiled and run, after SandboxFusion's
// sandbox/runners/major.py: the code goes into a `tmpXXXXXXXX.<ext>` file in the
// work dir (their NamedTemporaryFile), cpp compiles to `./test` with
// `g++ -std=c++17` plus the optional -lcrypto/-lssl/-lpthread flags that link,
// go builds to `./out`, the rest run the interpreter on the file.

/** Toolchain paths as seen inside the sandbox (probed at start; absent means unsupported). */
export interface Toolchain {
  python?: string;
  pytest?: boolean;
  bash?: string;
  gxx?: string;
  cppFlags?: string[];
  node?: string;
  go?: string;
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
}

/** A language this runner executes. */
export interface LanguageSpec {
  extension: string;
  /** Whether the probed toolchain can run it. */
  available: (t: Toolchain) => boolean;
  compile?: (c: LanguageContext) => CommandSpec;
  run: (c: LanguageContext) => CommandSpec;
  /** RLIMIT_AS for the run, from the requested memory limit (runtimes that reserve address space get headroom). */
  addressSpaceMb: (memoryLimitMb: number) => number;
  /** Messages a runtime prints when an allocation fails (see memory.ts). */
  memoryMarkers: RegExp[];
}

const ENOMEM = /Cannot allocate memory/;

// V8 reserves ~1.3 GiB of address space before running anything (code range,
// thread stacks, malloc arenas), so node gets its heap cap from
// --max-old-space-size and RLIMIT_AS = limit + 2 GiB, which only stops runaway
// off-heap allocations (Buffers); the cgroup, when present, is the tight cap.
const NODE_AS_HEADROOM_MB = 2048;
// A Go binary maps ~700 MiB of address space before main (arena index, heap
// reservations), so RLIMIT_AS = limit + 768 MiB lets the heap reach about the
// limit before "fatal error: out of memory"; GOMEMLIMIT makes the GC work harder
// as it gets close.
const GO_AS_HEADROOM_MB = 768;

function node(c: LanguageContext, extra: string[]): CommandSpec {
  return { argv: [c.tools.node ?? 'node', `--max-old-space-size=${c.memoryLimitMb}`, ...extra, c.source] };
}

const python: LanguageSpec = {
  extension: 'py',
  available: (t) => t.python !== undefined,
  // No -I (it drops the script dir from sys.path, so `files` could not be imported)
  // and no -S (site-packages such as numpy must import). The env is already clean.
  run: (c) => ({ argv: [c.tools.python ?? 'python3', c.source] }),
  addressSpaceMb: (m) => m,
  memoryMarkers: [/MemoryError/, ENOMEM],
};

/** The language table, keyed by SandboxFusion language name. */
export const LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  python,
  pytest: {
    ...python,
    available: (t) => t.python !== undefined && t.pytest === true,
    run: (c) => ({ argv: [c.tools.python ?? 'python3', '-m', 'pytest', c.source] }),
  },
  bash: {
    extension: 'sh',
    available: (t) => t.bash !== undefined,
    run: (c) => ({ argv: [c.tools.bash ?? '/bin/bash', c.source] }),
    addressSpaceMb: (m) => m,
    memoryMarkers: [/xmalloc: .*cannot allocate/i, ENOMEM],
  },
  cpp: {
    extension: 'cpp',
    available: (t) => t.gxx !== undefined,
    compile: (c) => ({ argv: [c.tools.gxx ?? 'g++', '-std=c++17', c.source, '-o', 'test', ...(c.tools.cppFlags ?? [])] }),
    run: () => ({ argv: ['./test'] }),
    addressSpaceMb: (m) => m,
    memoryMarkers: [/std::bad_alloc/, ENOMEM],
  },
  go: {
    extension: 'go',
    available: (t) => t.go !== undefined,
    compile: (c) => ({
      argv: [c.tools.go ?? 'go', 'build', '-o', 'out', c.source],
      // Offline, no toolchain downloads, no cgo (no C compiler flags from the source).
      env: { GOCACHE: '/tmp/.cache/go-build', GOPATH: '/tmp/go', GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
    }),
    run: (c) => ({ argv: ['./out'], env: { GOMEMLIMIT: `${c.memoryLimitMb}MiB` } }),
    addressSpaceMb: (m) => m + GO_AS_HEADROOM_MB,
    memoryMarkers: [/fatal error: out of memory/, /runtime: out of memory/, /runtime: cannot allocate memory/, ENOMEM],
  },
  nodejs: {
    extension: 'js',
    available: (t) => t.node !== undefined,
    run: (c) => node(c, []),
    addressSpaceMb: (m) => m + NODE_AS_HEADROOM_MB,
    memoryMarkers: [/JavaScript heap out of memory/, /Fatal process out of memory/, /Array buffer allocation failed/, ENOMEM],
  },
  typescript: {
    extension: 'ts',
    available: (t) => t.node !== undefined,
    // SandboxFusion runs tsx (transpile, no type check); Node's transform-types is the
    // same contract and also accepts enums and namespaces.
    run: (c) => node(c, ['--experimental-transform-types', '--disable-warning=ExperimentalWarning']),
    addressSpaceMb: (m) => m + NODE_AS_HEADROOM_MB,
    memoryMarkers: [/JavaScript heap out of memory/, /Fatal process out of memory/, /Array buffer allocation failed/, ENOMEM],
  },
};

/** Markers for the compile step (g++/go running out of memory). */
export const COMPILER_MEMORY_MARKERS: RegExp[] = [/virtual memory exhausted/, /out of memory allocating/, /runtime: out of memory/, ENOMEM];
