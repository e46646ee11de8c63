// A complete RunSpec for runner tests; each suite passes the limits it exercises.
import type { RunSpec } from '../runner.ts';

/** Defaults: 10 s compile, 5 s run, 128 MiB, 1 MiB output, no files. */
export function testRunSpec(language: string, code: string, extra: Partial<RunSpec> = {}): RunSpec {
  return {
    language,
    code,
    stdin: null,
    compileTimeoutMs: 10_000,
    runTimeoutMs: 5_000,
    memoryLimitMb: 128,
    files: {},
    fetchFiles: [],
    maxOutputBytes: 1 << 20,
    ...extra,
  };
}
