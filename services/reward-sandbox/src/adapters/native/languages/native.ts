// Compiled-to-native languages, after SandboxFusion's runners: cpp compiles to
// `./test` with `g++ -std=c++17` plus the optional -lcrypto/-lssl/-lpthread
// that link; go builds to `./out`; go_test runs `go test` on a `*_test.go`
// file; rust compiles to `./test` with rustc. D_ut: SandboxFusion compiles
// with `dmd -unittest -of=test`; here GCC's D front-end (`gdc -funittest`, the
// same D runtime: the module's unittest blocks run first, and when any ran,
// main does not and the summary is printed; with none, main runs). verilog:
// `iverilog -g2012 -s tb` (the top module must be `tb`) to `test.vvp`, run by
// `vvp -n`.

import { ENOMEM, type CommandSpec, type LanguageContext, type LanguageSpec } from './types.ts';

// A Go binary maps ~700 MiB of address space before main (arena index, heap
// reservations), so RLIMIT_AS = limit + 768 MiB lets the heap reach about the
// limit before "fatal error: out of memory"; GOMEMLIMIT makes the GC work harder
// as it gets close.
const GO_AS_HEADROOM_MB = 768;
// `go test` compiles and links inside the run step, so it gets the compile
// step's floor as well as the Go headroom.
const GO_TEST_AS_FLOOR_MB = 2048;
/** `go test` builds the test binary in the run step (~100 MiB for a small test, cache in /tmp included). */
const GO_TEST_RUN_FLOOR_MB = 512;

// GOPATH mode, offline, no toolchain downloads: SandboxFusion's go.mod offers
// testify and friends; here Debian's Go library tree (golang-*-dev under
// /usr/share/gocode, read-only) is the second GOPATH entry, so
// `github.com/stretchr/testify/assert` resolves without a module proxy. cgo
// stays on, as there: Debian's prebuilt standard library (and the library
// archives `make sandbox-toolchains` installs under /usr/share/gocode/pkg) are
// built with it, so a run compiles only its own code and links; with cgo off,
// net/http and crypto rebuilt on every go_test (~17 s of CPU with testify). The
// build cache lives in the run's own tmpfs, so runs share nothing. Without a C
// compiler (Debian's g++ brings gcc) cgo is off.
function goBuildEnv(c: LanguageContext): Record<string, string> {
  const gopath = ['/tmp/go', ...(c.tools.goLibraries === undefined ? [] : [c.tools.goLibraries])].join(':');
  return {
    GOCACHE: '/tmp/.cache/go-build',
    GOPATH: gopath,
    GO111MODULE: 'off',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    CGO_ENABLED: c.tools.gxx === undefined ? '0' : '1',
  };
}
const GO_MARKERS = [/fatal error: out of memory/, /runtime: out of memory/, /runtime: cannot allocate memory/, ENOMEM];

function goTest(c: LanguageContext): CommandSpec {
  return { argv: [c.tools.go ?? 'go', 'test', c.source], env: { ...goBuildEnv(c), GOMEMLIMIT: `${c.memoryLimitMb}MiB` } };
}

export const NATIVE_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
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
    compile: (c) => ({ argv: [c.tools.go ?? 'go', 'build', '-o', 'out', c.source], env: goBuildEnv(c) }),
    run: (c) => ({ argv: ['./out'], env: { GOMEMLIMIT: `${c.memoryLimitMb}MiB` } }),
    addressSpaceMb: (m) => m + GO_AS_HEADROOM_MB,
    memoryMarkers: GO_MARKERS,
  },
  go_test: {
    extension: 'go',
    suffix: '_test.go',
    available: (t) => t.go !== undefined,
    run: goTest,
    addressSpaceMb: (m) => Math.max(m, GO_TEST_AS_FLOOR_MB) + GO_AS_HEADROOM_MB,
    runFloorMb: GO_TEST_RUN_FLOOR_MB,
    memoryMarkers: GO_MARKERS,
  },
  rust: {
    extension: 'rs',
    available: (t) => t.rustc !== undefined,
    // SandboxFusion compiles without -O, so overflow panics and debug_assert! hold;
    // -O with debug assertions keeps those semantics and runs at release speed.
    compile: (c) => ({ argv: [c.tools.rustc ?? 'rustc', '-O', '-C', 'debug-assertions=on', c.source, '-o', 'test'] }),
    run: () => ({ argv: ['./test'] }),
    addressSpaceMb: (m) => m,
    // std's allocation-failure handler prints this, then aborts.
    memoryMarkers: [/memory allocation of \d+ bytes failed/, ENOMEM],
  },
  D_ut: {
    extension: 'd',
    available: (t) => t.gdc !== undefined,
    compile: (c) => ({ argv: [c.tools.gdc ?? 'gdc', '-funittest', c.source, '-o', 'test'] }),
    run: () => ({ argv: ['./test'] }),
    addressSpaceMb: (m) => m,
    // druntime's GC throws core.exception.OutOfMemoryError when an allocation fails.
    memoryMarkers: [/OutOfMemoryError/, ENOMEM],
  },
  verilog: {
    extension: 'sv',
    available: (t) => t.iverilog !== undefined && t.vvp !== undefined,
    compile: (c) => ({ argv: [c.tools.iverilog ?? 'iverilog', '-Wall', '-Winfloop', '-Wno-timescale', '-g2012', '-s', 'tb', '-o', 'test.vvp', c.source] }),
    run: (c) => ({ argv: [c.tools.vvp ?? 'vvp', '-n', 'test.vvp'] }),
    addressSpaceMb: (m) => m,
    memoryMarkers: [ENOMEM],
  },
};
