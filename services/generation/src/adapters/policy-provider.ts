import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode, type Logger } from '@rl/service-kit';
import type { PolicyProvider } from '../core/backends/embedded-backend.ts';
import type { GenerationConfig } from '../config.ts';
import { createRandomPolicy, loadPolicy, ModelHandle, openWeightsStore, watchWeights, type EmbeddedPolicy, type WeightsWatcher } from '@rl/policy';

/** The embedded model source of this process and how to stop it. */
export interface PolicySource {
  provider: PolicyProvider;
  /** Where the weights come from, for the startup log. */
  describe: string;
  stop(): Promise<void>;
  /** See RolloutDeps.waitForVersion; only for a watched object store. */
  waitForVersion?(version: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
}

/**
 * Builds the embedded model source from config: a safetensors file
 * (`POLICY_PATH`), a JetStream Object Store object watched for new versions
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
    const os = await openWeightsStore(nc, bucket);
    const watcher: WeightsWatcher = await watchWeights(
      os,
      name,
      (policy) => {
        if (handle === undefined) handle = new ModelHandle(policy);
        else handle.swap(policy);
        logger.info({ bucket, name, version: policy.version }, 'policy version loaded');
        for (const w of [...waiters]) w();
      },
      { load: options, onError: (err, info) => logger.error({ err, bucket, name, nuid: info.nuid }, 'policy version not loadable; keeping the current one') },
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
        }),
      stop: async () => {
        await watcher.stop();
        handle?.close();
      },
    };
  }
  const model =
    config.POLICY_PATH !== undefined
      ? await loadPolicy(config.POLICY_PATH, options)
      : await createRandomPolicy(
          { config: config.POLICY_INIT, tokenizer: { kind: 'byte' }, seed: config.POLICY_SEED, version: `untrained-seed${config.POLICY_SEED}` },
          options,
        );
  const handle = new ModelHandle<EmbeddedPolicy>(model);
  return {
    provider: { acquire: async () => handle.acquire(), current: () => handle.current },
    describe: config.POLICY_PATH ?? `untrained model (seed ${config.POLICY_SEED})`,
    stop: async () => handle.close(),
  };
}
