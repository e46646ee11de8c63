import { readFile } from 'node:fs/promises';
import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, BoundedQueue, ErrorCode, type Logger, parseJsonText, validationError } from '@rl/service-kit';
import type { GenerationConfig } from '../config.ts';
import type { InferenceBackend } from '../core/backend.ts';
import { createEmbeddedBackend, fixedPolicyProvider } from '../core/backends/embedded-backend.ts';
import { createScriptedPolicy, scriptFromRules, ScriptFile } from '../core/backends/scripted-policy.ts';
import { createHttpJsonClient } from './http-json.ts';
import { createOpenAiBackend } from './openai-backend.ts';

/** The configured backend, a description for the startup log, and its stop step. */
export interface BuiltBackend {
  backend: InferenceBackend;
  describe: string;
  stop(): Promise<void>;
  /** Present when the backend hot-swaps weight versions. */
  waitForVersion?(version: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
}

/** Builds the backend `GENERATION_BACKEND` names. */
export async function buildBackend(config: GenerationConfig, nc: NatsConnection | undefined, logger: Logger): Promise<BuiltBackend> {
  if (config.GENERATION_BACKEND === 'openai') {
    const baseUrl = config.OPENAI_BASE_URL ?? '';
    const post = createHttpJsonClient({
      timeoutMs: config.OPENAI_TIMEOUT_MS,
      maxRetries: config.OPENAI_MAX_RETRIES,
      retryBaseMs: config.OPENAI_RETRY_BASE_MS,
      semaphore: new BoundedQueue({ concurrency: config.OPENAI_CONCURRENCY }),
      apiKey: config.OPENAI_API_KEY,
    });
    const model = config.OPENAI_MODEL ?? config.MODEL_NAME ?? 'default';
    if (config.INFERENCE_SYNC !== 'none') {
      const { startServerSync } = await import('./inference-sync/start-server-sync.ts');
      const sync = await startServerSync(config, config.INFERENCE_SYNC, model, nc, logger);
      return {
        backend: createOpenAiBackend({ baseUrl, model, mode: config.OPENAI_MODE, post, versions: sync.gate }),
        describe: `${config.OPENAI_MODE} via ${baseUrl}, versions from ${config.POLICY_OBJECT_STORE}/${config.POLICY_OBJECT_NAME} (${config.INFERENCE_SYNC})`,
        stop: () => sync.stop(),
        waitForVersion: (version, timeoutMs, signal) => sync.gate.waitFor(version, timeoutMs, signal),
      };
    }
    return {
      backend: createOpenAiBackend({ baseUrl, model, mode: config.OPENAI_MODE, post }),
      describe: `${config.OPENAI_MODE} via ${baseUrl}`,
      stop: async () => {},
    };
  }
  if (config.GENERATION_BACKEND === 'scripted') {
    const path = config.GENERATION_SCRIPT ?? '';
    const text = await readFile(path, 'utf8').catch((err: unknown) => {
      throw new AppError(ErrorCode.InvalidConfig, `GENERATION_SCRIPT ${path}: cannot read`, { cause: err });
    });
    const parsed = ScriptFile.safeParse(parseJsonText(text, path));
    if (!parsed.success) throw validationError(parsed.error, path);
    const { ByteTokenizer } = await import('@rl/policy');
    const policy = createScriptedPolicy({ script: scriptFromRules(parsed.data), tokenizer: new ByteTokenizer() });
    const backend = createEmbeddedBackend({
      provider: fixedPolicyProvider(policy),
      model: config.MODEL_NAME ?? 'scripted',
      kind: 'scripted',
      maxBatch: config.EMBEDDED_MAX_BATCH,
    });
    return { backend, describe: `script ${path}`, stop: async () => {} };
  }
  // Loaded on demand: the tensor library is only needed by the embedded backend.
  const { createPolicySource } = await import('./policy-provider.ts');
  const source = await createPolicySource(config, nc, logger);
  const backend = createEmbeddedBackend({
    provider: source.provider,
    model: config.MODEL_NAME ?? 'rl-policy',
    maxBatch: config.EMBEDDED_MAX_BATCH,
    maxBatchAttention: config.EMBEDDED_MAX_BATCH_ATTENTION,
  });
  return { backend, describe: source.describe, stop: () => source.stop(), ...(source.waitForVersion && { waitForVersion: source.waitForVersion }) };
}
