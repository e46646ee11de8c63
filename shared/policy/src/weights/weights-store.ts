// Policy weights in a JetStream Object Store bucket: the trainer publishes a
// new version under a fixed object name; generation services watch that name
// and load each new version into a fresh model (see ModelHandle for the swap).
import type { NatsConnection } from '@nats-io/transport-node';
import { Objm, type ObjectInfo, type ObjectStore } from '@nats-io/obj';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { policyFromWeights, type EmbeddedPolicy, type EmbeddedPolicyOptions, type PolicyWeights } from '../embedded-policy.ts';
import type { Kernels } from '../model/kernels.ts';
import { readObjectDirect } from './direct-read.ts';
import { decodeWeights, encodeWeights } from './weights.ts';

/**
 * Opens the bucket, creating it when missing with `replicas` copies (3 on a
 * cluster: the weights outlive a node); an existing bucket keeps its own.
 */
export async function openWeightsStore(nc: NatsConnection, bucket: string, options: { replicas?: number } = {}): Promise<ObjectStore> {
  return new Objm(nc).create(bucket, { replicas: options.replicas ?? 1 });
}

/** Anything that can produce its weights. */
export type WeightsSource = PolicyWeights | { exportWeights(version: string): Promise<PolicyWeights> };

/** Publishes `source` as `version` under `name`; the object's metadata carries the version too. */
export async function publishWeights(os: ObjectStore, name: string, source: WeightsSource, version: string): Promise<ObjectInfo> {
  const w = 'exportWeights' in source ? await source.exportWeights(version) : { ...source, version };
  return os.putBlob({ name, description: `policy weights ${version}`, metadata: { version } }, encodeWeights(w));
}

/** The weights currently stored under `name`, or null. */
export async function fetchWeights(os: ObjectStore, name: string): Promise<PolicyWeights | null> {
  const bytes = await os.getBlob(name);
  return bytes === null ? null : decodeWeights(bytes, `weights object ${name}`);
}

/** Options of {@link watchWeights}. */
export interface WatchWeightsOptions {
  /** Options for each loaded policy (versions of the same shape share compiled kernels automatically). */
  load?: EmbeddedPolicyOptions;
  /** A version that could not be loaded (corrupt object, bad config); the watch goes on. Without it such an error ends the watch and rejects `done`. */
  onError?: (err: unknown, info: ObjectInfo) => void;
  /** Stops the watch. */
  signal?: AbortSignal;
  /** Read each version with direct gets on this connection (any live replica answers; see direct-read.ts) instead of a consumer, as on a cluster. */
  directReads?: NatsConnection;
}

/** A running watch. */
export interface WeightsWatcher {
  /** Ends the watch and waits for a load in progress to finish. */
  stop(): Promise<void>;
  /** Settles when the watch ends. */
  readonly done: Promise<void>;
  /**
   * Loads the object's current version now if the watch has not delivered it.
   * The watch's consumer lives on one node of a cluster; when that node dies
   * the client notices only after a minute of missed heartbeats, so a caller
   * that waits for a version asks the bucket directly (any replica answers).
   * Rejects on a version that cannot be loaded when there is no `onError`.
   */
  refresh(): Promise<void>;
}

/**
 * Calls `onVersion` with a new policy for the object's current version and for
 * every later one, in order. Updates that are already superseded when their
 * turn comes are skipped. The callback owns each policy it receives.
 */
export async function watchWeights(
  os: ObjectStore,
  name: string,
  onVersion: (policy: EmbeddedPolicy, info: ObjectInfo) => void | Promise<void>,
  options: WatchWeightsOptions = {},
): Promise<WeightsWatcher> {
  const iter = await os.watch({ includeHistory: true, ignoreDeletes: true });
  // The watch keeps one hold on the latest kernels, so the next version reuses them even after the handle disposed the last model.
  let kernels: Kernels | undefined = options.load?.kernels?.retain();
  let lastNuid: string | undefined;
  let stopped = false;
  const stopWatch = () => iter.stop();
  options.signal?.addEventListener('abort', stopWatch, { once: true });

  // Loads the current object unless it is the one loaded, or (from the watch) newer than `seen`, whose own update is queued.
  const loadCurrent = async (seen: ObjectInfo | undefined): Promise<void> => {
    const current = await os.info(name);
    if (stopped || current === null || current.deleted || current.nuid === lastNuid || (seen !== undefined && current.nuid !== seen.nuid)) return;
    try {
      const bytes = options.directReads !== undefined ? await readObjectDirect(options.directReads, current) : await os.getBlob(name);
      if (bytes === null) return;
      const policy = await policyFromWeights(decodeWeights(bytes, `weights object ${name}`), { ...options.load, ...(kernels ? { kernels } : {}) });
      lastNuid = current.nuid;
      kernels?.release();
      kernels = policy.kernels.retain();
      await onVersion(policy, current);
    } catch (err) {
      if (options.onError === undefined) throw new AppError(ErrorCode.Internal, `cannot load weights ${name}`, { cause: err });
      options.onError(err, current);
    }
  };
  // One load at a time, from the watch or a refresh, in the order asked.
  let chain: Promise<void> = Promise.resolve();
  const serial = (seen: ObjectInfo | undefined): Promise<void> => {
    const next = chain.then(() => loadCurrent(seen));
    chain = next.catch(() => {});
    return next;
  };

  const done = (async () => {
    for await (const info of iter) {
      if (info.name !== name || info.deleted || info.nuid === lastNuid) continue;
      await serial(info);
    }
  })().finally(() => {
    stopped = true;
    options.signal?.removeEventListener('abort', stopWatch);
    void chain.finally(() => kernels?.release());
  });
  return {
    done,
    refresh: () => (stopped ? Promise.resolve() : serial(undefined)),
    stop: async () => {
      iter.stop();
      await done.catch(() => undefined);
      await chain;
    },
  };
}
