import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { RunCodeRequest, RunCodeResponse } from '../schemas.ts';
import type { RunOutcome, RunSpec } from './runner.ts';

/** Service-wide settings that shape a run. */
export interface RunDefaults {
  /** What SandboxFusion's `memory_limit_MB: -1` means here. */
  defaultMemoryMb: number;
  /** Cap on each of stdout and stderr. */
  maxOutputBytes: number;
}

function badFile(path: string, why: string): AppError {
  return new AppError(ErrorCode.ValidationFailed, `files[${JSON.stringify(path)}]: ${why}`);
}

/** A path inside the work dir: relative, no `..`, no empty or `.` segments games, no NUL. */
export function checkRelativePath(path: string, field: string): void {
  if (path.startsWith('/') || path.includes('\0') || path.includes('\\')) throw badFile(path, `${field} must be a relative path inside the work dir`);
  for (const part of path.split('/')) {
    if (part === '..' || part === '.' || part === '') throw badFile(path, `${field} must not contain '..', '.' or empty segments`);
  }
}

function decodeBase64(path: string, b64: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw badFile(path, 'content is not valid base64');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Maps a SandboxFusion request to a runner spec (seconds -> ms, -1 -> default memory, base64 -> bytes). */
export function toRunSpec(req: RunCodeRequest, d: RunDefaults): RunSpec {
  const files: Record<string, Uint8Array | null> = {};
  for (const [path, content] of Object.entries(req.files)) {
    checkRelativePath(path, 'file path');
    files[path] = content === null ? null : decodeBase64(path, content);
  }
  // SandboxFusion also fetches absolute paths (read after the run); the runners read them inside the sandbox.
  for (const path of req.fetch_files) checkRelativePath(path.startsWith('/') ? path.slice(1) : path, 'fetch_files entry');
  return {
    language: req.language,
    code: req.code,
    stdin: req.stdin,
    compileTimeoutMs: Math.round(req.compile_timeout * 1000),
    runTimeoutMs: Math.round(req.run_timeout * 1000),
    memoryLimitMb: req.memory_limit_MB === -1 ? d.defaultMemoryMb : req.memory_limit_MB,
    files,
    fetchFiles: req.fetch_files,
    maxOutputBytes: d.maxOutputBytes,
  };
}

/**
 * SandboxFusion `parse_run_status`: an `Error` command is a SandboxError (its
 * stderr is the message); a time limit or any non-zero return code is Failed;
 * otherwise Success. Our notes (e.g. output caps) are appended to the message.
 */
export function toRunCodeResponse(outcome: RunOutcome): RunCodeResponse {
  const commands = [outcome.compile_result, outcome.run_result].filter((c) => c !== null);
  let status: RunCodeResponse['status'] = 'Success';
  let message = '';
  const errored = commands.find((c) => c.status === 'Error');
  if (errored !== undefined) {
    status = 'SandboxError';
    message = errored.stderr ?? '';
  } else if (commands.some((c) => c.status === 'TimeLimitExceeded' || (c.return_code !== null && c.return_code !== 0))) {
    status = 'Failed';
  }
  const notes = outcome.notes.join('; ');
  return {
    status,
    message: [message, notes].filter((m) => m !== '').join('\n'),
    compile_result: outcome.compile_result,
    run_result: outcome.run_result,
    executor_pod_name: null,
    files: outcome.files,
  };
}

/** The response for a failure of the sandbox itself (SandboxFusion answers these as SandboxError, HTTP 200). */
export function sandboxErrorResponse(message: string): RunCodeResponse {
  return { status: 'SandboxError', message, compile_result: null, run_result: null, executor_pod_name: null, files: {} };
}
