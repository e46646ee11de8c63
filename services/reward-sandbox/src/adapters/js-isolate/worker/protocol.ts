// Messages between the service and a JavaScript worker process (worker/main.ts),
// over the IPC channel of child_process.fork. Both sides parse everything they
// receive with these schemas: the worker runs hostile programs, so the service
// treats its messages as untrusted input like any other child-process output.

import { z } from 'zod';

const RunId = z.number().int().nonnegative();
const Bytes = z.number().int().nonnegative();

/** Service -> worker: run one program (a worker runs one at a time). */
export const RunRequest = z.object({
  type: z.literal('run'),
  id: RunId,
  language: z.enum(['nodejs', 'typescript']),
  /** Path the program believes it has (stack traces, __filename). */
  filename: z.string().min(1),
  /** The JavaScript to run (TypeScript is converted by the service). */
  js: z.string(),
  /** Source quoted in error excerpts; null when it is `js` itself. */
  display: z.string().nullable(),
  stdin: z.string().nullable(),
  runTimeoutMs: z.number().int().positive(),
  /** Isolate heap cap (the run's memory limit); at most the limit the worker was started for. */
  memoryMb: z.number().int().positive(),
  maxOutputBytes: Bytes,
});
export type RunRequest = z.infer<typeof RunRequest>;

/** Why a worker asks to be replaced after answering. */
export const RetireReason = {
  /** The watchdog gave up on the isolate (e.g. stuck in a native sort): its thread may still burn CPU. */
  Stuck: 'stuck',
  /** A fatal V8 out-of-memory parked the isolate's thread and heap for the life of the process. */
  Catastrophe: 'catastrophe',
} as const;
export type RetireReason = (typeof RetireReason)[keyof typeof RetireReason];

/** Worker -> service: started, first isolate prepared, no program run yet (the service then measures and limits it). */
export const ReadyMessage = z.object({ type: z.literal('ready') });
/** Worker -> service: housekeeping after a run is done, next isolate prepared (the service measures it again). */
export const IdleMessage = z.object({ type: z.literal('idle') });
/** Worker -> service: output the program wrote, as the runtime flushes it (already capped). */
export const OutputMessage = z.object({
  type: z.literal('output'),
  id: RunId,
  fd: z.union([z.literal(1), z.literal(2)]),
  text: z.string(),
  /** The stream reached the output cap with this chunk. */
  truncated: z.boolean(),
});
/** Worker -> service: how the run ended (its output came before, as OutputMessages). */
export const ResultMessage = z.object({
  type: z.literal('result'),
  id: RunId,
  status: z.enum(['Finished', 'TimeLimitExceeded']),
  returnCode: z.number().int().nullable(),
  executionTimeS: z.number().nonnegative(),
  memoryLimitExceeded: z.boolean(),
  retire: z.enum([RetireReason.Stuck, RetireReason.Catastrophe]).nullable(),
  /** isolated-vm's catastrophic-error text, for the service's log. */
  catastrophe: z.string().nullable(),
});
/** Worker -> service: the sandbox itself failed on this run (a SandboxError, not a program result). */
export const FailedMessage = z.object({ type: z.literal('failed'), id: RunId, message: z.string() });

/** Anything a worker may send. */
export const WorkerMessage = z.discriminatedUnion('type', [ReadyMessage, IdleMessage, OutputMessage, ResultMessage, FailedMessage]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
export type OutputMessage = z.infer<typeof OutputMessage>;
export type ResultMessage = z.infer<typeof ResultMessage>;
