import type { NatsConnection } from '@nats-io/transport-node';
import { openWeightsStore } from '@rl/policy';
import { AppError, BoundedQueue, ErrorCode, type Logger } from '@rl/service-kit';
import type { GenerationConfig } from '../../config.ts';
import { createHttpJsonClient } from '../http-json.ts';
import { rootOf } from '../openai-backend.ts';
import { type InferenceSync, startInferenceSync } from './inference-sync.ts';
import { createSyncTarget, type SyncKind } from './server-targets.ts';

/** The sync `INFERENCE_SYNC` configures: versions from POLICY_OBJECT_STORE to the server at OPENAI_BASE_URL. */
export async function startServerSync(
  config: GenerationConfig,
  kind: SyncKind,
  model: string,
  nc: NatsConnection | undefined,
  logger: Logger,
): Promise<InferenceSync> {
  if (nc === undefined) throw new AppError(ErrorCode.InvalidConfig, 'INFERENCE_SYNC needs NATS (NATS_ENABLED=true) to watch POLICY_OBJECT_STORE');
  // Weight loads take long and must not queue behind rollout requests: their own deadline and one slot.
  const post = createHttpJsonClient({
    timeoutMs: config.INFERENCE_SYNC_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
    retryBaseMs: config.OPENAI_RETRY_BASE_MS,
    semaphore: new BoundedQueue({ concurrency: 1 }),
    apiKey: config.OPENAI_API_KEY,
  });
  const target = createSyncTarget(kind, { root: rootOf(config.OPENAI_BASE_URL ?? ''), model, post });
  const os = await openWeightsStore(nc, config.POLICY_OBJECT_STORE ?? '', { replicas: config.NATS_JS_REPLICAS });
  return startInferenceSync({ os, name: config.POLICY_OBJECT_NAME, dir: config.INFERENCE_SYNC_DIR ?? '', target, logger });
}
