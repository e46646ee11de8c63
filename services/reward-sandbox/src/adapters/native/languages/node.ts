// Node languages, with the npm packages of runtime/node-packages (lodash,
// jest, tsx, ...) bound read-only at /opt/node-packages when installed, and
// reachable from any directory through /node_modules (../bubblewrap/argv.ts), where
// SandboxFusion symlinks its runtime/node node_modules into the run's dir.
//   nodejs      `node tmpXXXX.js`
//   typescript  SandboxFusion runs `tsx tmpXXXX.ts`: here node with tsx's
//               CommonJS hook (`--require`: one process and one isolate, where
//               tsx's CLI starts a child node and its ESM loader a hooks thread
//               with a second V8 heap), so ESM syntax compiles to CommonJS
//               through esbuild and `import * as _ from 'lodash'` works as there
//               (top-level await does not, as there); without the packages,
//               Node's own type stripping (native ESM: named imports of
//               CommonJS packages fail).
//   jest        SandboxFusion writes `tmpXXXX.test.ts` beside its runtime's
//               package.json and runs `npm run test` (`FORCE_COLOR=0 jest`:
//               babel-jest with preset-env and preset-typescript, two workers,
//               a JSON report). Here the jest CLI runs directly with that
//               configuration (/opt/node-packages/jest.config.js, rootDir = the
//               work dir). jest exits 1 when a test fails or the file does not
//               parse, so both are a finished run with return code 1.

import { ENOMEM, type CommandSpec, type LanguageContext, type LanguageSpec } from './types.ts';

// V8 reserves ~1.3 GiB of address space before running anything (code range,
// thread stacks, malloc arenas), so node gets its heap cap from
// --max-old-space-size and RLIMIT_AS = limit + 2 GiB, which only stops runaway
// off-heap allocations (Buffers); the cgroup, when present, is the tight cap.
const NODE_AS_HEADROOM_MB = 2048;
const NODE_MARKERS = [/JavaScript heap out of memory/, /Fatal process out of memory/, /Array buffer allocation failed/, ENOMEM];

function node(c: LanguageContext, extra: string[], env?: Record<string, string>): CommandSpec {
  const argv = [c.tools.node ?? 'node', `--max-old-space-size=${c.memoryLimitMb}`, ...extra];
  return env === undefined ? { argv } : { argv, env };
}

const base = {
  addressSpaceMb: (m: number) => m + NODE_AS_HEADROOM_MB,
  memoryMarkers: NODE_MARKERS,
} as const;

export const NODE_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  nodejs: {
    ...base,
    extension: 'js',
    available: (t) => t.node !== undefined,
    run: (c) => node(c, [c.source]),
  },
  typescript: {
    ...base,
    extension: 'ts',
    available: (t) => t.node !== undefined,
    // Neither checks types. Node's transform-types also accepts enums and namespaces.
    // esbuild's sync API would start a worker thread (a second V8 isolate, ~100 ms and
    // another ~1 GiB address-space reservation); without it, it runs the esbuild binary
    // once for the file. tsx's transform cache is useless in a fresh /tmp.
    run: (c) =>
      c.tools.tsx !== undefined
        ? node(c, ['--require', c.tools.tsx, c.source], { ESBUILD_WORKER_THREADS: '0', TSX_DISABLE_CACHE: '1' })
        : node(c, ['--experimental-transform-types', '--disable-warning=ExperimentalWarning', c.source]),
  },
  jest: {
    ...base,
    extension: 'ts',
    suffix: '.test.ts',
    available: (t) => t.node !== undefined && t.jest !== undefined && t.nodePackages !== undefined,
    // jest's workers are forked with node's flags, so each gets the heap cap (and RLIMIT_AS) too.
    run: (c) => node(c, [c.tools.jest ?? 'jest', '--config', `${c.tools.nodePackages ?? ''}/jest.config.js`], { FORCE_COLOR: '0' }),
  },
};
