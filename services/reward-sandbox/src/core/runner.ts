// The contract between the sandbox service and its execution back-ends (the
// bubblewrap runner for native languages, the isolated-vm runner for JavaScript).
// Field names and statuses follow SandboxFusion's sandbox/runners/types.py.

/** SandboxFusion `CommandRunStatus`. */
export const CommandStatus = {
  Finished: 'Finished',
  Error: 'Error',
  TimeLimitExceeded: 'TimeLimitExceeded',
} as const;
export type CommandStatus = (typeof CommandStatus)[keyof typeof CommandStatus];

/** SandboxFusion `CommandRunResult`, plus our optional verdict fields (extra keys, schema-compatible). */
export interface CommandResult {
  status: CommandStatus;
  /** Wall time of the command in seconds (SandboxFusion reports seconds as a float). */
  execution_time: number | null;
  return_code: number | null;
  stdout: string | null;
  stderr: string | null;
  /** True when the process was stopped by, or failed because of, the memory limit (SandboxFusion issue #43). */
  memory_limit_exceeded?: boolean;
  /** True when stdout or stderr was cut at the output cap. */
  output_truncated?: boolean;
}

/** Everything a runner needs for one execution (already validated and defaulted). */
export interface RunSpec {
  language: string;
  code: string;
  stdin: string | null;
  compileTimeoutMs: number;
  runTimeoutMs: number;
  /** Address-space/memory cap in MiB; SandboxFusion's -1 has already been mapped to the service default. */
  memoryLimitMb: number;
  /** Extra files for the work dir: relative path -> content (decoded from base64); null means an empty file. Paths are validated (no `..`, not absolute). */
  files: Record<string, Uint8Array | null>;
  /** Relative paths to read back after the run. */
  fetchFiles: string[];
  /** Cap on each of stdout and stderr, in bytes. */
  maxOutputBytes: number;
}

/** What a runner returns (SandboxFusion `CodeRunResult`). */
export interface RunOutcome {
  compile_result: CommandResult | null;
  run_result: CommandResult | null;
  /** Fetched files: relative path -> base64 content. */
  files: Record<string, string>;
  /** Human-readable notes for the response `message` (e.g. "stdout truncated at 8 MiB"). */
  notes: string[];
}

/** One execution back-end. */
export interface Runner {
  /** Stable name shown in `/v1/languages` (e.g. `bwrap`, `isolated-vm`). */
  readonly name: string;
  /** Languages this runner can execute on this machine (toolchains probed at start). */
  languages(): ReadonlyArray<string>;
  /**
   * Runs one program. Must never throw for anything the program does (crash, timeout,
   * memory, output flood): those are results. Throws only for sandbox failures
   * (e.g. bwrap missing), which the service reports as SandboxFusion `SandboxError`.
   * When `signal` aborts, the whole process tree is killed before the promise settles.
   */
  run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome>;
}
