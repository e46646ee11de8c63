import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode, type Logger } from '@rl/service-kit';
import type { PolicyProvider } from '../core/backends/embedded-backend.ts';
import type { GenerationConfig } from '../config.ts';
import { stat } from 'node:fs/promises';
import {
  createRandomPolicy,
  isModelDir,
  loadModelDir,
  loadPolicy,
  ModelHandle,
  openWeightsStore,
  policyFromWeights,
  watchWeights,
  type EmbeddedPolicy,
  type EmbeddedPolicyOptions,
  type WeightsWatcher,
} from '@rl/policy';

/** The embedded model source of this process and how to stop it. */
export interface PolicySource {
  provider: PolicyProvider;
  /** Where the weights come from, for the startup log. */
  describe: string;
  stop(): Promise<void>;
  /** See RolloutDeps.waitForVersion; only for a watched object store. */
  waitForVersion?(version: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
}

/** An error of a setting: its name first, the cause's message after (a config problem, not a request's). */
function settingError(setting: string, err: unknown): AppError {
  const message = err instanceof Error ? err.message : String(err);
  return new AppError(ErrorCode.InvalidConfig, `${setting}: ${message}`, { cause: err });
}

/**
 * The model at `POLICY_PATH`: a Hugging Face model directory (config.json,
 * safetensors weights, tokenizer files) or this project's single-file weights.
 */
async function loadPolicyPath(path: string, options: EmbeddedPolicyOptions): Promise<EmbeddedPolicy> {
  const setting = `POLICY_PATH ${path}`;
  const kind = await stat(path).then(
    (s) => (s.isDirectory() ? 'dir' : 'file'),
    (err: unknown) => {
      throw settingError(setting, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : err);
    },
  );
  try {
    if (kind === 'file') return await loadPolicy(path, options);
    if (!(await isModelDir(path))) throw new Error('a directory without config.json (not a Hugging Face model directory)');
    return await policyFromWeights(await loadModelDir(path), options);
  } catch (err) {
    throw settingError(setting, err);
  }
}

/** The untrained model of `POLICY_INIT` (a ModelConfig without vocabSize) with the byte tokenizer. */
async function untrainedPolicy(config: GenerationConfig, options: EmbeddedPolicyOptions): Promise<EmbeddedPolicy> {
  try {
    return await createRandomPolicy(
      { config: config.POLICY_INIT, tokenizer: { kind: 'byte' }, seed: config.POLICY_SEED, version: `untrained-seed${config.POLICY_SEED}` },
      options,
    );
  } catch (err) {
    throw settingError('POLICY_INIT', err);
  }
}

/**
 * Builds the embedded model source from config: a Hugging Face model directory
 * or a safetensors weights file (`POLICY_PATH`), a JetStream Object Store object watched for new versions
 * (`POLICY_OBJECT_STORE` / `POLICY_OBJECT_NAME`, hot-swapped: running
 * trajectories keep their lease on the old weights), or else an untrained model
 * from `POLICY_SEED` with the byte tokenizer, so the stack runs with nothing configured.
 */
export async function createPolicySource(config: GenerationConfig, nc: NatsConnection | undefined, logger: Logger): Promise<PolicySource> {
  const options = { maxBatchSize: config.EMBEDDED_MAX_BATCH };
  if (config.POLICY_OBJECT_STORE !== undefined) {
    if (nc === undefined) throw new AppError(ErrorCode.InvalidConfig, 'POLICY_OBJECT_STORE needs NATS (NATS_ENABLED=true)');
    const bucket = config.POLICY_OBJECT_STORE;
    const name = config.POLICY_OBJECT_NAME;
    let handle: ModelHandle<EmbeddedPolicy> | undefined;
    const waiters = new Set<() => void>();
    const os = await openWeightsStore(nc, bucket, { replicas: config.NATS_JS_REPLICAS });
    const watcher: WeightsWatcher = await watchWeights(
      os,
      name,
      (policy) => {
        if (handle === undefined) handle = new ModelHandle(policy);
        else handle.swap(policy);
        logger.info({ bucket, name, version: policy.version }, 'policy version loaded');
        for (const w of [...waiters]) w();
      },
      {
        load: options,
        onError: (err, info) => logger.error({ err, bucket, name, nuid: info.nuid }, 'policy version not loadable; keeping the current one'),
        directReads: nc,
      },
    );
    return {
      provider: {
        acquire: async () => {
          if (handle === undefined)
            throw new AppError(ErrorCode.Unavailable, `no policy version has been published to ${bucket}/${name} yet`, { retryable: true });
          return handle.acquire();
        },
        current: () => handle?.current,
      },
      describe: `object store ${bucket}/${name}`,
      waitForVersion: (version, timeoutMs, signal) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (handle?.current.version !== version) return;
            done();
            resolve();
          };
          const fail = (why: string) => {
            done();
            reject(new AppError(ErrorCode.Unavailable, `policy version ${version} ${why} (serving ${handle?.current.version ?? 'none'})`, { retryable: true }));
          };
          const timer = setTimeout(() => fail(`was not loaded within ${timeoutMs} ms`), timeoutMs);
          const onAbort = () => fail('wait was cancelled');
          const done = () => {
            clearTimeout(timer);
            waiters.delete(check);
            signal.removeEventListener('abort', onAbort);
          };
          signal.addEventListener('abort', onAbort, { once: true });
          waiters.add(check);
          check();
          // The version is normally published before it is asked for: read it now in case the watch lost its node.
          if (handle?.current.version !== version)
            watcher.refresh().catch((err: unknown) => logger.warn({ err, bucket, name }, 'weights refresh failed; waiting for the watch'));
        }),
      stop: async () => {
        await watcher.stop();
        handle?.close();
      },
    };
  }
  const model = config.POLICY_PATH !== undefined ? await loadPolicyPath(config.POLICY_PATH, options) : await untrainedPolicy(config, options);
  const handle = new ModelHandle<EmbeddedPolicy>(model);
  return {
    provider: { acquire: async () => handle.acquire(), current: () => handle.current },
    describe: config.POLICY_PATH ?? `untrained model (seed ${config.POLICY_SEED})`,
    stop: async () => handle.close(),
  };
}
