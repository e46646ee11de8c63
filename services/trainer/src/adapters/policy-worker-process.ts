// Starts a job's policy worker as its own process and talks to it over NATS
// (protocol.ts). Ready when `policy.<job>.info` answers; stopped with SIGTERM
// (graceful), then SIGKILL after a grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode, requestJson, retry } from '@rl/service-kit';
import type { z } from 'zod';
import { createComputeMeter, type PolicyPort } from '../core/controller/ports.ts';
import { stepRetryDelayMs } from '../core/controller/retry-step.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import type { JobEnvironment } from './job-environment.ts';
import { asRoot, type RunAs } from './run-as.ts';
import { workerExitedError } from './worker-restarts.ts';
import * as P from '../policy/protocol.ts';
import type { WorkerSpec } from '../policy/worker-spec.ts';
import type { WorkerTimeouts } from '../plan/rl-plan.ts';

const WORKER_MAIN = fileURLToPath(new URL('../policy/worker-main.ts', import.meta.url));
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;
/**
 * Re-sending a call the bus lost: the connection dropped while the reply was
 * awaited (`unavailable`), or the worker had not re-subscribed yet after a
 * nats-server restart (`no_responders`). Every verb is safe to send again:
 * logprobs, info and generate only read, export publishes the same version
 * again, and the worker applies update and sft_step once per step
 * (policy/applied-once.ts). 8 attempts from 250 ms, doubling to 4 s: about 16 s.
 */
const RESEND = { attempts: 8, baseDelayMs: 250, maxDelayMs: 4_000, codes: new Set<string>([ErrorCode.Unavailable, ErrorCode.NoResponders]) } as const;

/**
 * Fails the trainer's start when the run-as user cannot load the worker's code
 * (a checkout under a private home directory), instead of every job's worker.
 */
export function checkWorkerReadable(who: RunAs | null): void {
  if (who === null) return;
  try {
    closeSync(openSync(WORKER_MAIN, 'r'));
  } catch (err) {
    throw new AppError(
      ErrorCode.InvalidConfig,
      `TRAINER_RUN_AS: ${who.user} cannot read the policy worker ${WORKER_MAIN} (${(err as NodeJS.ErrnoException).code}); make the checkout readable by that user or set TRAINER_RUN_AS=root`,
    );
  }
}

/** A running worker process and its client. */
export interface PolicyWorker extends PolicyPort {
  sftStep(body: z.input<typeof P.SftStepRequest>): Promise<z.output<typeof P.SftStepReply>>;
  generate(prompts: number[][], sampling: z.input<typeof P.SamplingSchema>): Promise<z.output<typeof P.GenerateReply>>;
  /** Writes the job's final models (hf_model/, hf_critic/ in the job directory); returns their paths. */
  exportFinalModels(): Promise<string[]>;
  stop(): Promise<void>;
}

async function startPolicyWorker(opts: {
  nc: NatsConnection;
  natsUrl: string;
  spec: WorkerSpec;
  dir: string;
  resumeDir: string | null;
  timeouts: WorkerTimeouts;
  signal: AbortSignal;
  logLevel: string;
  /** The user the worker runs as (uid, gid, no other groups); null: the trainer's own. */
  runAs: RunAs | null;
}): Promise<PolicyWorker> {
  const { nc, spec, timeouts } = opts;
  await mkdir(opts.dir, { recursive: true });
  const specPath = join(opts.dir, 'worker-spec.json');
  await writeFile(specPath, JSON.stringify(spec, null, 2));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NATS_URL: opts.natsUrl,
    // The worker serves and publishes as the trainer's NATS user (only that user may write the weights bucket), and creates the bucket with the trainer's replicas.
    ...pickDefined(process.env, ['NATS_USER', 'NATS_PASS', 'NATS_TOKEN', 'NATS_INBOX_PREFIX', 'NATS_JS_REPLICAS']),
    LOG_LEVEL: opts.logLevel,
    POLICY_WORKER_SPEC: specPath,
    ...(opts.resumeDir !== null && { POLICY_WORKER_RESUME: opts.resumeDir }),
  };
  // The IPC channel only signals liveness: when the trainer dies (even by SIGKILL) it closes and the worker exits.
  const ids = opts.runAs === null ? {} : { uid: opts.runAs.uid, gid: opts.runAs.gid };
  const child: ChildProcess = asRoot(opts.runAs, () => spawn(process.execPath, [WORKER_MAIN], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...ids }));
  let exited: string | null = null;
  // A call in flight when the worker dies fails then, not at its (long) timeout.
  const died = new Promise<never>((_, reject) =>
    child.once('exit', (code, sig) => {
      exited = String(sig ?? code);
      reject(workerExitedError(exited));
    }),
  );
  died.catch(() => {});
  const compute = createComputeMeter();
  const callOnce = async <O extends { compute_s?: number | undefined }>(
    verb: P.PolicyVerb,
    body: unknown,
    response: z.ZodType<O>,
    timeoutMs = timeouts.callMs,
  ): Promise<O> => {
    if (exited !== null) throw workerExitedError(exited);
    const out = await Promise.race([requestJson(nc, P.policySubject(spec.job, verb), body, { timeoutMs, response }), died]);
    compute.add(out.compute_s);
    return out;
  };
  // The job's signal stops the resends through isRetryable, not retry's signal: a call made after a cancel still goes out once.
  const call: typeof callOnce = (verb, body, response, timeoutMs) =>
    retry(() => callOnce(verb, body, response, timeoutMs), {
      retries: RESEND.attempts - 1,
      isRetryable: (err) => err instanceof AppError && RESEND.codes.has(err.code) && exited === null && !opts.signal.aborted,
      delayMs: (attempt) => stepRetryDelayMs(attempt, RESEND.baseDelayMs, RESEND.maxDelayMs),
      sleep: (ms) => delay(ms, undefined, { signal: opts.signal }),
    });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await gone;
    clearTimeout(timer);
  };
  // Ready once the worker answers; no_responders/timeouts while it loads are expected.
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (opts.signal.aborted) {
      await stop();
      opts.signal.throwIfAborted();
    }
    try {
      await callOnce('info', {}, P.InfoReply, 2_000);
      break;
    } catch (err) {
      const retry = err instanceof AppError && (err.code === ErrorCode.NoResponders || err.code === ErrorCode.Timeout);
      if (!retry || Date.now() > deadline) {
        await stop();
        throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    stop,
    takeComputeSeconds: compute.take,
    logprobs: async (model, pairs, entropy, widths, without) => {
      const reply = await call(
        'logprobs',
        {
          model,
          pairs,
          entropy,
          ...(widths && { prompt_width: widths.promptWidth, response_width: widths.responseWidth }),
          ...(without && { without_context: without.entries, without_context_prompt_width: without.promptWidth }),
        },
        P.LogprobsReply,
      );
      return {
        logprobs: reply.logprobs,
        ...(reply.entropies && { entropies: reply.entropies }),
        ...(reply.logprobs_without_context && { logprobsWithoutContext: reply.logprobs_without_context }),
        ...(reply.without_context_compute_s !== undefined && { withoutContextComputeS: reply.without_context_compute_s }),
      };
    },
    update: (body) => call('update', body, P.UpdateReply, timeouts.updateMs),
    sftStep: (body) => call('sft_step', body, P.SftStepReply, timeouts.updateMs),
    values: async (pairs, widths) =>
      (await call('values', { pairs, prompt_width: widths.promptWidth, response_width: widths.responseWidth }, P.ValuesReply)).values,
    updateCritic: async (body) => (await call('update_critic', body, P.UpdateCriticReply, timeouts.updateMs)).metrics,
    export: async (publish, checkpointDir) =>
      (await call('export', { publish, ...(checkpointDir !== undefined && { checkpoint_dir: checkpointDir }) }, P.ExportReply, timeouts.updateMs)).version,
    exportFinalModels: async () => (await call('export', { publish: false, final_models: true }, P.ExportReply, timeouts.updateMs)).final_models ?? [],
    version: async () => (await call('info', {}, P.InfoReply)).version,
    generate: (prompts, sampling) => call('generate', { prompts, sampling }, P.GenerateReply, timeouts.updateMs),
  };
}

function pickDefined(env: NodeJS.ProcessEnv, keys: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(keys.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
}

/** The worker of job `ctx` in the job's environment, with its job's call deadlines; `resumeDir` restores a checkpoint. */
export function startJobWorker(
  env: JobEnvironment,
  ctx: JobContext,
  spec: Omit<WorkerSpec, 'job'>,
  dir: string,
  resumeDir: string | null,
  timeouts: WorkerTimeouts,
): Promise<PolicyWorker> {
  return startPolicyWorker({
    nc: env.nc,
    natsUrl: env.natsUrl,
    spec: { job: ctx.id, ...spec },
    dir,
    resumeDir,
    timeouts,
    signal: ctx.signal,
    logLevel: env.logLevel,
    runAs: env.runAs,
  });
}
