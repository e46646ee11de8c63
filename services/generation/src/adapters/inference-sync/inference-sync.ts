// Keeps an inference server on the policy the trainer just published: each new
// version in the object store is written to INFERENCE_SYNC_DIR and loaded into
// the server before any later trajectory starts (see VersionGate).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { decodeAdapterObject, decodeWeights, type openWeightsStore, saveModelDir } from '@rl/policy';
import { AppError, ErrorCode, type Logger } from '@rl/service-kit';
import { type ServedVersion, VersionGate } from '../../core/version-gate.ts';
import type { SyncTarget } from './server-targets.ts';

/** The bucket the trainer publishes to (@nats-io/obj's ObjectStore, which this service does not depend on directly). */
type ObjectStore = Awaited<ReturnType<typeof openWeightsStore>>;

/** Options of {@link startInferenceSync}. */
export interface InferenceSyncOptions {
  os: ObjectStore;
  /** Object the trainer publishes versions under. */
  name: string;
  /** Directory versions are written to; the server reads them at the same path. */
  dir: string;
  target: SyncTarget;
  logger: Logger;
}

/** A running sync. */
export interface InferenceSync {
  /** Leases of the served version, for the backend's sessions. */
  gate: VersionGate;
  /** Ends the watch (a sync in progress finishes first). */
  stop(): Promise<void>;
}

/** A directory name for a version: the version's safe characters, made unique by a sequence number. */
function dirName(seq: number, version: string): string {
  return `${String(seq).padStart(6, '0')}-${version.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}`;
}

/** Writes what the server reads for this version (the object's own version is the one served). */
async function materialize(target: SyncTarget, bytes: Uint8Array, source: string, dir: string): Promise<string> {
  if (target.artifact === 'peft-adapter') {
    const adapter = decodeAdapterObject(bytes, `${source} (INFERENCE_SYNC=vllm-lora reads LoRA adapters)`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'adapter_model.safetensors'), adapter.weightsFile);
    await writeFile(join(dir, 'adapter_config.json'), adapter.adapterConfig);
    return adapter.version;
  }
  const weights = decodeWeights(bytes, `${source} (INFERENCE_SYNC=sglang|vllm reads full policy weights)`);
  await saveModelDir(dir, weights);
  return weights.version;
}

/** Watches `os`/`name` and syncs every new version to the server through `target`. */
export async function startInferenceSync(o: InferenceSyncOptions): Promise<InferenceSync> {
  const root = resolve(o.dir);
  // By the served object itself: under full weights every version has the same model name.
  const dirs = new Map<ServedVersion, string>();
  const retire = async (served: ServedVersion) => {
    try {
      await o.target.unload(served.model);
      const dir = dirs.get(served);
      dirs.delete(served);
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      o.logger.info({ version: served.version, model: served.model }, 'superseded policy version released');
    } catch (err) {
      o.logger.error({ err, version: served.version, model: served.model }, 'superseded policy version not released from the inference server');
    }
  };
  const gate = new VersionGate({ exclusive: o.target.exclusive, onRetired: (served) => void retire(served) });
  let seq = 0;

  async function sync(bytes: Uint8Array, announced: string): Promise<void> {
    await gate.beginSync(announced);
    seq += 1;
    const dir = join(root, dirName(seq, announced));
    const source = `object ${o.name} (version ${announced})`;
    try {
      const version = await materialize(o.target, bytes, source, dir);
      const model = await o.target.load(version, dir, seq);
      const served = { version, model };
      dirs.set(served, dir);
      gate.commit(served);
      o.logger.info({ version, model, dir }, 'policy version loaded by the inference server');
    } catch (err) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      const message = err instanceof Error ? err.message : String(err);
      const error = new AppError(ErrorCode.Unavailable, `policy version ${announced} did not reach the inference server: ${message}`, {
        retryable: true,
        cause: err,
      });
      gate.fail(announced, error);
      o.logger.error({ err, version: announced }, 'policy version not synced; rollouts fail until a later version syncs');
    }
  }

  const iter = await o.os.watch({ includeHistory: true, ignoreDeletes: true });
  let lastNuid: string | undefined;
  const done = (async () => {
    for await (const info of iter) {
      if (info.name !== o.name || info.deleted || info.nuid === lastNuid) continue;
      const announced = info.metadata?.version ?? info.nuid;
      let bytes: Uint8Array | null;
      try {
        const current = await o.os.info(o.name);
        if (current !== null && current.nuid !== info.nuid) continue; // a newer version is queued behind this one
        bytes = await o.os.getBlob(o.name);
      } catch (err) {
        gate.fail(
          announced,
          new AppError(ErrorCode.Unavailable, `policy version ${announced} could not be read from ${o.name}`, { retryable: true, cause: err }),
        );
        o.logger.error({ err, version: announced }, 'policy version not readable from the object store');
        continue;
      }
      if (bytes === null) continue;
      lastNuid = info.nuid;
      await sync(bytes, announced);
    }
  })();
  done.catch((err: unknown) => o.logger.error({ err, name: o.name }, 'policy object watch ended'));
  return {
    gate,
    stop: async () => {
      iter.stop();
      await done.catch(() => undefined);
    },
  };
}
