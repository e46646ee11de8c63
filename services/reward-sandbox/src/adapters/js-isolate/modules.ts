// What the in-isolate runtime (runtime/builtins.js) implements, as data: the static
// check uses it to decide whether a program may run in the isolate, and the ESM
// bridge uses it to export named bindings. Keep in sync with `builtinFactories`
// there; js-isolate.test.ts checks that every listed member exists in the isolate.

/** A builtin module shim: members it provides, and whether the binding itself may be used bare (called, `new`-ed, extended). */
export interface ModuleShape {
  readonly members: readonly string[];
  readonly bare: boolean;
}

const ASSERT_MEMBERS = [
  'ok',
  'equal',
  'notEqual',
  'strictEqual',
  'notStrictEqual',
  'deepEqual',
  'deepStrictEqual',
  'notDeepEqual',
  'notDeepStrictEqual',
  'throws',
  'doesNotThrow',
  'rejects',
  'doesNotReject',
  'fail',
  'match',
  'doesNotMatch',
  'ifError',
  'AssertionError',
  'strict',
] as const;

const READLINE_MEMBERS = ['createInterface', 'Interface'] as const;
const TIMER_MEMBERS = ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'] as const;

/** `process` members the runtime defines (sub-objects such as `process.stdout` are not checked further). */
export const PROCESS_MEMBERS: readonly string[] = [
  'argv',
  'argv0',
  'env',
  'exit',
  'exitCode',
  'stdin',
  'stdout',
  'stderr',
  'platform',
  'arch',
  'version',
  'versions',
  'release',
  'nextTick',
  'hrtime',
  'uptime',
  'cwd',
  'pid',
  'ppid',
  'title',
  'execPath',
  'execArgv',
  'emitWarning',
  'on',
  'once',
  'off',
  'addListener',
  'removeListener',
  'removeAllListeners',
  'emit',
  'listenerCount',
  'listeners',
  'prependListener',
];

/** `console` members the runtime defines. */
export const CONSOLE_MEMBERS: readonly string[] = [
  'log',
  'info',
  'debug',
  'dirxml',
  'error',
  'warn',
  'trace',
  'dir',
  'assert',
  'count',
  'countReset',
  'time',
  'timeEnd',
  'timeLog',
  'group',
  'groupCollapsed',
  'groupEnd',
];

/** Builtin modules available inside the isolate, keyed without the `node:` prefix. */
export const ISOLATE_MODULES: Readonly<Record<string, ModuleShape>> = {
  fs: { members: ['readFileSync', 'writeFileSync', 'appendFileSync', 'existsSync', 'writeSync'], bare: false },
  readline: { members: READLINE_MEMBERS, bare: false },
  'readline/promises': { members: READLINE_MEMBERS, bare: false },
  events: { members: ['EventEmitter', 'once', 'defaultMaxListeners'], bare: true },
  util: {
    members: ['format', 'formatWithOptions', 'inspect', 'isDeepStrictEqual', 'promisify', 'inherits', 'deprecate'],
    bare: false,
  },
  assert: { members: ASSERT_MEMBERS, bare: true },
  'assert/strict': { members: ASSERT_MEMBERS, bare: true },
  process: { members: PROCESS_MEMBERS, bare: false },
  os: { members: ['EOL', 'platform', 'arch', 'type', 'endianness', 'tmpdir'], bare: false },
  timers: { members: TIMER_MEMBERS, bare: false },
  'timers/promises': { members: ['setTimeout', 'setImmediate'], bare: false },
};

/** Looks up a module specifier (`fs`, `node:fs`); undefined when the isolate cannot provide it. */
export function isolateModule(specifier: string): ModuleShape | undefined {
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  return Object.hasOwn(ISOLATE_MODULES, name) ? ISOLATE_MODULES[name] : undefined;
}
