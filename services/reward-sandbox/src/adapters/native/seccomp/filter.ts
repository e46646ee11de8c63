// Builds the sandboxes' seccomp program once, at start-up: the deny list goes
// to build-filter.py (ctypes over the system's libseccomp.so.2), which compiles
// it to classic BPF for this host's architecture, checks it in a child process,
// and answers with the bytes. A maintained compiler does the BPF (architecture
// checks, x32 and foreign-ABI calls killed), not hand-written bytecode.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CodedError } from '@rl/service-kit';
import { DENY_LIST, type DenyRule } from './deny-list.ts';

/** Why no filter could be built. */
export const SeccompProblem = {
  /** libseccomp.so.2 (Debian libseccomp2) cannot be loaded. */
  LibraryMissing: 'library_missing',
  /** The helper could not run or libseccomp refused the rules. */
  BuildFailed: 'build_failed',
  /** The kernel refused the program, or it did not deny what it should. */
  SelfTestFailed: 'self_test_failed',
} as const;
/** Union of {@link SeccompProblem} codes. */
export type SeccompProblem = (typeof SeccompProblem)[keyof typeof SeccompProblem];

/** No seccomp program is available; sandboxes must not run without one. */
export class SeccompUnavailableError extends CodedError<SeccompProblem> {
  override readonly name = 'SeccompUnavailableError';
}

/** A compiled filter, shared by every sandbox of the service. */
export interface SeccompFilter {
  /** Classic BPF (struct sock_filter[]), what `bwrap --seccomp` and PR_SET_SECCOMP take. */
  readonly bpf: Buffer;
  /** libseccomp's version, for logs. */
  readonly libseccomp: string;
  /** Calls the program denies. */
  readonly denied: readonly string[];
  /** Calls libseccomp knows but this architecture lacks: nothing to deny. */
  readonly absent: readonly string[];
  /** Names libseccomp does not know (too old for them): NOT denied; logged at start-up. */
  readonly unknown: readonly string[];
}

/** Options of {@link buildSeccompFilter}. */
export interface BuildSeccompOptions {
  /** Interpreter for the helper. @default '/usr/bin/python3' */
  pythonPath?: string;
  /** The library ctypes loads. @default 'libseccomp.so.2' */
  library?: string;
  /** @default DENY_LIST */
  rules?: readonly DenyRule[];
  /** @default 10000 */
  timeoutMs?: number;
}

const HELPER = fileURLToPath(new URL('./build-filter.py', import.meta.url));

const HelperAnswer = z.union([
  z.object({ error: z.object({ code: z.enum(SeccompProblem), message: z.string() }) }),
  z.object({
    bpf: z.string().min(1),
    libseccomp: z.string(),
    denied: z.array(z.string()),
    absent: z.array(z.string()),
    unknown: z.array(z.string()),
  }),
]);

/** Compiles the deny list; throws {@link SeccompUnavailableError} when it cannot. */
export function buildSeccompFilter(options: BuildSeccompOptions = {}): SeccompFilter {
  const { pythonPath = '/usr/bin/python3', library = 'libseccomp.so.2', rules = DENY_LIST, timeoutMs = 10_000 } = options;
  const request = {
    library,
    rules: rules.map((r) => ({ syscall: r.syscall, errno: r.errno, ...(r.whenArg0HasAnyOf && { arg0_any: r.whenArg0HasAnyOf }) })),
  };
  const r = spawnSync(pythonPath, ['-I', '-S', HELPER], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 1 << 20,
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
  });
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error?.message ?? `exited with ${r.signal ?? r.status}: ${r.stderr.trim().slice(-2000)}`;
    throw new SeccompUnavailableError(SeccompProblem.BuildFailed, `seccomp filter helper failed (${pythonPath}): ${why}`, { cause: r.error });
  }
  let answer: z.infer<typeof HelperAnswer>;
  try {
    answer = HelperAnswer.parse(JSON.parse(r.stdout));
  } catch (cause) {
    throw new SeccompUnavailableError(SeccompProblem.BuildFailed, 'seccomp filter helper gave an unreadable answer', { cause });
  }
  if ('error' in answer) throw new SeccompUnavailableError(answer.error.code, answer.error.message);
  const bpf = Buffer.from(answer.bpf, 'base64');
  return { bpf, libseccomp: answer.libseccomp, denied: answer.denied, absent: answer.absent, unknown: answer.unknown };
}

/** What to log about a filter (everything but the bytes). */
export function describeSeccompFilter(filter: SeccompFilter): Record<string, unknown> {
  const { bpf, ...rest } = filter;
  return { ...rest, instructions: bpf.length / 8 };
}
