// Turns a finished sandbox execution into SandboxFusion's result shape:
// compile_result only for compiled languages, no run_result after a failed or
// timed-out compile, TimeLimitExceeded with return_code null and whatever output
// arrived, execution_time in seconds.

import { setOwn } from '@rl/service-kit/core';
import type { CommandResult, RunOutcome } from '../../../core/runner.ts';
import { COMPILER_MEMORY_MARKERS } from '../languages/index.ts';
import type { Execution } from './execute.ts';
import { cpuLimitReached as cpuLimitReachedBy, decodeReturnCode, memoryLimitExceeded } from '../memory-verdict.ts';
import type { CappedBuffer } from './output.ts';
import type { CgroupStats } from '../slots/cgroup.ts';
import { truncationNote } from '../plan/run-inputs.ts';

/** What the outcome builder needs besides the execution. */
export interface OutcomeContext {
  hasCompile: boolean;
  memoryLimitMb: number;
  compileMemoryMb: number;
  runCpuSeconds: number;
  runMarkers: RegExp[];
  fetchFiles: string[];
  cgroup: CgroupStats | null;
}

function text(buf: CappedBuffer, name: string, notes: string[]): string {
  if (buf.truncated) notes.push(truncationNote(name, buf.cap, buf.seen));
  return buf.text();
}

/** Builds the RunOutcome (the caller has already checked that the sandbox started). */
export function buildOutcome(x: Execution, c: OutcomeContext): RunOutcome {
  const notes: string[] = [];
  let compile_result: CommandResult | null = null;
  let runs = true;
  if (c.hasCompile) {
    const timedOut = x.timedOut === 'compile';
    // No marker: the supervisor itself died mid-compile; bwrap's status is all we have.
    const status = x.compileStatus ?? x.exitStatus;
    const return_code = timedOut || status === null ? null : decodeReturnCode(status);
    const stderr = text(x.compileErr, 'compile stderr', notes);
    compile_result = {
      status: timedOut ? 'TimeLimitExceeded' : 'Finished',
      execution_time: x.compileSeconds,
      return_code,
      stdout: text(x.compileOut, 'compile stdout', notes),
      stderr,
      memory_limit_exceeded: memoryLimitExceeded({
        returnCode: return_code,
        stderr,
        markers: COMPILER_MEMORY_MARKERS,
        killedByUs: timedOut,
        cpuLimitReached: false,
        memoryLimitMb: c.compileMemoryMb,
        cgroup: return_code === 0 ? null : c.cgroup,
      }),
      output_truncated: x.compileOut.truncated || x.compileErr.truncated,
    };
    runs = !timedOut && return_code === 0;
  }
  let run_result: CommandResult | null = null;
  if (runs) {
    const wallTimeout = x.timedOut === 'run';
    const status = x.exitStatus ?? x.runStatus;
    const return_code = wallTimeout || status === null ? null : decodeReturnCode(status);
    const cpu = x.report.cpu.length > 0 ? (x.report.cpu.at(-1) ?? 0) - (c.hasCompile ? (x.report.cpu[0] ?? 0) : 0) : 0;
    const cpuLimitReached = cpuLimitReachedBy(return_code, cpu, c.runCpuSeconds);
    if (cpuLimitReached) notes.push(`run stopped at the CPU-time limit (${c.runCpuSeconds} s)`);
    const stderr = text(x.stderr, 'stderr', notes);
    run_result = {
      status: wallTimeout || cpuLimitReached ? 'TimeLimitExceeded' : 'Finished',
      execution_time: x.runSeconds,
      return_code,
      stdout: text(x.stdout, 'stdout', notes),
      stderr,
      memory_limit_exceeded: memoryLimitExceeded({
        returnCode: return_code,
        stderr,
        markers: c.runMarkers,
        killedByUs: wallTimeout,
        cpuLimitReached,
        memoryLimitMb: c.memoryLimitMb,
        cgroup: c.cgroup,
      }),
      output_truncated: x.stdout.truncated || x.stderr.truncated,
    };
  }
  const files: Record<string, string> = {};
  x.report.files.forEach((b64, i) => {
    const name = c.fetchFiles[i];
    // fetch_files names are the client's: a file called __proto__ is still a file.
    if (name !== undefined) setOwn(files, name, b64);
  });
  if (x.report.overflowed) notes.push('fetch_files: total size over the cap, some files were dropped');
  return { compile_result, run_result, files, notes };
}
