// One run on one worker, from the service's side: send the program, rebuild its
// output from the chunks the worker streams, and make sure the run ends by its
// deadline whatever the worker does. At deadline + grace a worker that has not
// answered is SIGKILLed and the run is a TimeLimitExceeded with the output
// received so far (the worker's own watchdog normally answers before that).

import { CommandStatus, type CommandResult, type RunOutcome } from '../../../core/runner.ts';
import { OOM_EXIT_CODE, outOfMemoryNotice } from '../memory.ts';
import { OutputSink } from '../output.ts';
import { JsWorkerError, JsWorkerErrorCode } from './errors.ts';
import { KillReason, exitVerdict } from './exit-verdict.ts';
import type { ResultMessage, RunRequest } from './protocol.ts';
import type { WorkerExit, WorkerProcess } from './worker-process.ts';

/** Where a worker goes after its run. */
export interface WorkerReturn {
  release(worker: WorkerProcess): void;
  retire(worker: WorkerProcess, reason: string): void;
}

/** Timing and cancellation of one run. */
export interface WorkerRunOptions {
  /** Past the run timeout, how long the worker has to answer before it is killed. */
  killGraceMs: number;
  signal: AbortSignal;
  /** Told about a fatal V8 OOM in the worker (its worker is then replaced). */
  onCatastrophe: (message: string) => void;
}

/** Runs `request` on `worker`; the worker goes back to `pool` (or is retired) when it ends. */
export function runOnWorker(worker: WorkerProcess, request: RunRequest, pool: WorkerReturn, opts: WorkerRunOptions): Promise<RunOutcome> {
  const sink = new OutputSink(request.maxOutputBytes);
  // The worker's clock for the run starts when it receives it; so does this one.
  const sentAt = performance.now();
  const elapsedS = () => (performance.now() - sentAt) / 1000;
  return new Promise<RunOutcome>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      worker.end();
      settle();
    };
    const timer = setTimeout(() => worker.kill(KillReason.Deadline), request.runTimeoutMs + opts.killGraceMs);
    const onAbort = (): void => {
      pool.retire(worker, KillReason.Abort);
      finish(() => reject(opts.signal.reason));
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    worker.begin(request, {
      output(message) {
        sink.write(message.fd, message.text);
        if (message.truncated) sink.markTruncated(message.fd);
      },
      result(message) {
        if (message.catastrophe !== null) opts.onCatastrophe(message.catastrophe);
        finish(() => resolve(outcome(fromResult(message, sink), sink)));
        if (message.retire === null) pool.release(worker);
        else pool.retire(worker, message.retire);
      },
      failed(message) {
        pool.retire(worker, 'failed');
        finish(() => reject(new JsWorkerError(JsWorkerErrorCode.RunFailed, message)));
      },
      gone(exit) {
        finish(() => settleGone(exit, request.memoryMb, sink, elapsedS(), resolve, reject));
      },
    });
    if (opts.signal.aborted) onAbort();
  });
}

function settleGone(
  exit: WorkerExit,
  memoryMb: number,
  sink: OutputSink,
  elapsedS: number,
  resolve: (o: RunOutcome) => void,
  reject: (e: unknown) => void,
): void {
  const verdict = exitVerdict(exit);
  if (verdict === 'time-limit') {
    resolve(outcome(commandResult(CommandStatus.TimeLimitExceeded, null, elapsedS, sink), sink));
    return;
  }
  if (verdict === 'memory-limit') {
    // The same result as a heap-limit stop inside the worker (execution.ts #outOfMemory).
    sink.write(2, outOfMemoryNotice(memoryMb));
    const result = commandResult(CommandStatus.Finished, OOM_EXIT_CODE, elapsedS, sink);
    result.memory_limit_exceeded = true;
    resolve(outcome(result, sink));
    return;
  }
  if (verdict === 'closed') {
    reject(new JsWorkerError(JsWorkerErrorCode.Closed, 'the JavaScript runner was closed during the run'));
    return;
  }
  const code = exit.killedFor === JsWorkerErrorCode.Protocol ? JsWorkerErrorCode.Protocol : JsWorkerErrorCode.Crashed;
  const why = exit.killedFor ?? exit.signal ?? `exit code ${exit.code}`;
  reject(new JsWorkerError(code, `JavaScript worker died during the run (${why}): ${exit.stderrTail.trim().slice(-500)}`));
}

function fromResult(message: ResultMessage, sink: OutputSink): CommandResult {
  const result = commandResult(message.status, message.returnCode, message.executionTimeS, sink);
  if (message.memoryLimitExceeded) result.memory_limit_exceeded = true;
  return result;
}

function commandResult(status: CommandStatus, code: number | null, executionTimeS: number, sink: OutputSink): CommandResult {
  const result: CommandResult = { status, execution_time: executionTimeS, return_code: code, stdout: sink.text(1), stderr: sink.text(2) };
  if (sink.truncated(1) || sink.truncated(2)) result.output_truncated = true;
  return result;
}

function outcome(run: CommandResult, sink: OutputSink): RunOutcome {
  return { compile_result: null, run_result: run, files: {}, notes: sink.notes() };
}
