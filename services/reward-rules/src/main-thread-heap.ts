// Imported first by main.ts, before anything heavy loads. V8 sizes the main
// thread's young generation when the process starts: Node 24 lets each of its two
// semi-spaces grow to 64 MB, and under load they do (the event loop only moves
// request and result bytes, but ~30 MB/s of them), which is ~100 MB resident for
// garbage. `--max-semi-space-size` is read only at start-up, so a service started
// without it (`node src/main.ts`, as every launcher and the image do) replaces
// itself with the same command plus the flag: process.execve keeps the pid, the
// environment and the standard streams, and starts no child process.
// MAIN_SEMI_SPACE_MB (config.ts) sets the size; 0, or a --max-semi-space-size
// already given (command line or NODE_OPTIONS), leaves the process as it is.
// Worker threads size theirs through `resourceLimits` (SCORE_WORKER_YOUNG_MB).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

/** Default of MAIN_SEMI_SPACE_MB (config.ts documents it). */
export const DEFAULT_MAIN_SEMI_SPACE_MB = 4;

const FLAG = '--max-semi-space-size';

/** The command to re-execute with, or undefined when the process should be left as it is. */
export function semiSpaceReexec(execArgv: readonly string[], argv: readonly string[], env: NodeJS.ProcessEnv): string[] | undefined {
  const raw = env.MAIN_SEMI_SPACE_MB ?? String(DEFAULT_MAIN_SEMI_SPACE_MB);
  // Anything but a plain integer is left to loadConfig, which reports it as invalid configuration.
  if (!/^\d+$/.test(raw) || Number(raw) === 0) return undefined;
  if (execArgv.some((a) => a.startsWith(FLAG)) || (env.NODE_OPTIONS ?? '').includes(FLAG)) return undefined;
  return [argv[0] ?? process.execPath, `${FLAG}=${Number(raw)}`, ...execArgv, ...argv.slice(1)];
}

// Only in the service's own process: tests and tools may import this module (config.ts does).
const entry = process.argv[1];
if (isMainThread && entry !== undefined && realpathSync(entry) === fileURLToPath(new URL('./main.ts', import.meta.url))) {
  const args = semiSpaceReexec(process.execArgv, process.argv, process.env);
  if (args !== undefined && typeof process.execve === 'function') process.execve(process.execPath, args, process.env);
}
