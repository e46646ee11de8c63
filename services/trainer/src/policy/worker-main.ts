// Policy worker process (one per training job): wiring only. Serves the
// protocol's verbs on `policy.<job>.*` over NATS (a restart resumes from
// POLICY_WORKER_RESUME, a checkpoint directory); HTTP on an ephemeral port
// gives /healthz, /readyz and /metrics like every service.
import { readFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import {
  AppError,
  BaseConfig,
  ErrorCode,
  connectNatsFromConfig,
  createLogger,
  createMetrics,
  hostService,
  loadConfig,
  parseJsonText,
  parsedEndpoint,
  startTelemetry,
  validationError,
} from '@rl/service-kit';
import { openWeightsStore, publishAdapter, publishWeights } from '@rl/policy';
import { z } from 'zod';
import * as P from './protocol.ts';
import { PolicyWorkerCore } from './worker-core.ts';
import { WorkerSpec } from './worker-spec.ts';

const WorkerConfig = BaseConfig.extend({
  /** HTTP port (0: any free port). */
  PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Path of the JSON WorkerSpec written by the controller. */
  POLICY_WORKER_SPEC: z.string().min(1),
  /** Checkpoint directory to restore instead of initialising. */
  POLICY_WORKER_RESUME: z.string().min(1).optional(),
});

const config = loadConfig(WorkerConfig, process.env);
// Started by a trainer with an IPC channel: if the trainer dies, stop too, so a
// restarted trainer's worker is the only one answering this job's subjects.
if (process.send !== undefined) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
const specText = await readFile(config.POLICY_WORKER_SPEC, 'utf8');
const parsed = WorkerSpec.safeParse(parseJsonText(specText, config.POLICY_WORKER_SPEC));
if (!parsed.success) throw validationError(parsed.error, config.POLICY_WORKER_SPEC);
const spec = parsed.data;
const name = `policy-${spec.job}`;
const logger = createLogger({ service: name, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(name, process.env);
const metrics = createMetrics(name);
const nats = await connectNatsFromConfig(config, name);
if (nats === undefined) throw new Error('the policy worker needs NATS (NATS_ENABLED=true)');

const core =
  config.POLICY_WORKER_RESUME !== undefined ? await PolicyWorkerCore.fromCheckpoint(spec, config.POLICY_WORKER_RESUME) : await PolicyWorkerCore.create(spec);
const store = await openWeightsStore(nats.nc, spec.weights.bucket, { replicas: config.NATS_JS_REPLICAS });
logger.info({ job: spec.job, version: core.version, resumed: config.POLICY_WORKER_RESUME ?? null }, 'policy ready');

// One verb at a time: generate/score must not interleave with an update of the same weights.
let chain: Promise<unknown> = Promise.resolve();
const serial = <T>(f: () => Promise<T>): Promise<T> => {
  const next = chain.then(f, f);
  chain = next.catch(() => {});
  return next;
};

// The weights and optimizer state lived in an engine that is gone: this worker
// cannot serve the job any more. It exits, and the trainer starts a new one
// from the job's last checkpoint (adapters/worker-restarts.ts).
function exitIfEngineFailed(): void {
  const failure = core.engineFailure;
  if (failure === null) return;
  // Before the call is answered: the trainer then sees the worker exit, not an error it might retry here.
  logger.error({ err: failure }, 'engine failed: the policy worker exits');
  process.exit(1);
}

// Every reply says how long the worker computed (`compute_s`), so the trainer can tell model time from bus time.
const verb = <I extends z.ZodType>(v: P.PolicyVerb, request: I, handle: (input: z.output<I>) => Promise<object>) =>
  parsedEndpoint({
    name: v,
    subject: P.policySubject(spec.job, v),
    request,
    handle: (input: z.output<I>) =>
      serial(async () => {
        const started = performance.now();
        try {
          const out = await handle(input);
          return { ...out, compute_s: (performance.now() - started) / 1000 };
        } catch (err) {
          exitIfEngineFailed();
          throw err;
        }
      }),
  });

await hostService({
  info: { service: name, version: '0.1.0', description: `Policy worker of training job ${spec.job}` },
  config,
  logger,
  metrics,
  telemetry,
  nats,
  routes: () => {},
  endpoints: [
    verb('info', P.InfoRequest, async () => {
      const policy = await core.actor();
      return { version: core.version, tokenizer: policy.tokenizer.kind, vocab_size: policy.tokenizer.vocabSize, max_seq_len: policy.maxSequenceLength };
    }),
    verb('generate', P.GenerateRequest, (req) => core.generate(req)),
    verb('logprobs', P.LogprobsRequest, (req) => core.logprobs(req)),
    verb('update', P.UpdateRequest, (req) => core.update(req)),
    verb('sft_step', P.SftStepRequest, (req) => core.sftStep(req)),
    verb('values', P.ValuesRequest, (req) => core.critic.values(req)),
    verb('update_critic', P.UpdateCriticRequest, (req) => core.critic.update(req)),
    verb('export', P.ExportRequest, async (req) => {
      const out: z.input<typeof P.ExportReply> = { version: core.version };
      if (req.publish) {
        // The generation service reads what its INFERENCE_SYNC expects: a LoRA adapter (vllm-lora) or full weights.
        if (spec.weights.format === 'adapter') await publishAdapter(store, spec.weights.name, await core.adapterObject(), core.version);
        else await publishWeights(store, spec.weights.name, await core.exportWeights(), core.version);
        out.object = { bucket: spec.weights.bucket, name: spec.weights.name };
      }
      if (req.checkpoint_dir !== undefined) {
        // Checkpoints go only inside this job's directory (where the trainer wrote the spec), whoever asks on the bus.
        const jobDir = dirname(resolve(config.POLICY_WORKER_SPEC));
        if (!resolve(jobDir, req.checkpoint_dir).startsWith(jobDir + sep)) {
          throw new AppError(ErrorCode.BadRequest, `checkpoint_dir: must be inside the job directory ${jobDir}`, { details: { field: 'checkpoint_dir' } });
        }
        await core.saveCheckpoint(req.checkpoint_dir);
        out.checkpoint_dir = req.checkpoint_dir;
      }
      if (req.final_models) out.final_models = await core.saveFinalModels(dirname(resolve(config.POLICY_WORKER_SPEC)));
      return out;
    }),
  ],
  stopSteps: [{ name: 'policy', run: async () => core.dispose() }],
});
