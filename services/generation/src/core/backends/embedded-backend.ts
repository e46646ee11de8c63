import { AppError, ErrorCode, MicroBatcher } from '@rl/service-kit/core';
import { rowSeed } from '@rl/policy/core';
import type { ChatCodec, InferenceBackend, TokenSession } from '../backend.ts';
import type { Generation, PolicyModel, SamplingParams } from '../policy-types.ts';
import { tokenizerCodec } from './tokenizer-codec.ts';

/** A model pinned until `release()`, so a hot-swap never changes weights under a running trajectory. */
export interface PolicyLease {
  readonly model: PolicyModel;
  release(): void;
}

/** Where the embedded backend gets its model: a fixed one, or a holder the weight watcher swaps. */
export interface PolicyProvider {
  acquire(): Promise<PolicyLease>;
  /** The model new leases get, if loaded. */
  current(): PolicyModel | undefined;
}

/** A provider of one model that never changes. */
export function fixedPolicyProvider(model: PolicyModel): PolicyProvider {
  return { acquire: async () => ({ model, release: () => {} }), current: () => model };
}

/** Options of {@link createEmbeddedBackend}. */
export interface EmbeddedBackendOptions {
  provider: PolicyProvider;
  /** Name served by `/v1/models`. */
  model: string;
  /** `scripted` when the provider serves a script instead of weights. @default 'embedded' */
  kind?: 'embedded' | 'scripted';
  /** Most prompts per forward batch. @default 64 */
  maxBatch?: number;
  /**
   * Most attention per batch: the sum over rows of (prompt + max new tokens)^2,
   * because attention memory grows with rows x length^2. @default 4194304
   */
  maxBatchAttention?: number;
}

interface Item {
  prompt: readonly number[];
  params: SamplingParams;
}

/** Batch key: requests batch together with equal sampling parameters; seeds differ freely (they travel per row). */
function paramsKey(p: SamplingParams): string {
  return JSON.stringify([p.temperature ?? 1, p.topK ?? 0, p.topP ?? 1, p.maxTokens, p.stopTokenIds ?? null, p.stop ?? null, p.seed === undefined]);
}

/** Seeded batches: the seed each request's single row would have used alone (rowSeed(seed, 0)), so batching never changes a sample. */
function batchParams(items: readonly Item[]): SamplingParams {
  const { seed, ...shared } = (items[0] as Item).params;
  return seed === undefined ? shared : { ...shared, rowSeeds: items.map((i) => rowSeed(i.params.seed ?? 0, 0)) };
}

/**
 * The embedded policy as a backend: sessions lease the current model, and
 * concurrent generations on one model are batched into single `generate` calls.
 */
export function createEmbeddedBackend(options: EmbeddedBackendOptions): InferenceBackend {
  const { provider, model: name, kind = 'embedded', maxBatch = 64, maxBatchAttention = 2048 * 2048 } = options;
  const batchers = new WeakMap<PolicyModel, MicroBatcher<Item, Generation>>();
  const codecs = new WeakMap<PolicyModel, ChatCodec>();

  function batcherFor(model: PolicyModel): MicroBatcher<Item, Generation> {
    let b = batchers.get(model);
    if (b === undefined) {
      b = new MicroBatcher<Item, Generation>({
        maxBatch,
        // Whatever arrives in the same event-loop turn (or while a batch runs) shares the next batch.
        windowMs: 0,
        cost: (item) => (item.prompt.length + item.params.maxTokens) ** 2,
        maxBatchCost: maxBatchAttention,
        run: async (items) =>
          checkGenerations(
            await model.generate(
              items.map((i) => [...i.prompt]),
              batchParams(items),
            ),
            items.length,
          ),
      });
      batchers.set(model, b);
    }
    return b;
  }

  function codecFor(model: PolicyModel): ChatCodec {
    let c = codecs.get(model);
    if (c === undefined) codecs.set(model, (c = tokenizerCodec(model.tokenizer)));
    return c;
  }

  return {
    kind,
    model: name,
    ready: () => provider.current() !== undefined,
    currentVersion: () => provider.current()?.version ?? 'none',
    async open(): Promise<TokenSession> {
      const lease = await provider.acquire();
      const { model } = lease;
      return {
        mode: 'tokens',
        modelVersion: model.version,
        codec: codecFor(model),
        maxSequenceLength: model.maxSequenceLength,
        async generate({ promptIds, params, signal }) {
          const room = model.maxSequenceLength - promptIds.length;
          if (room <= 0 || params.maxTokens <= 0) return { tokenIds: [], logprobs: [], finishReason: 'length' };
          const p: SamplingParams = { ...params, maxTokens: Math.min(params.maxTokens, room), stopTokenIds: stopIds(model, params) };
          const [generation] = await batcherFor(model).submit([{ prompt: promptIds, params: p }], { key: paramsKey(p), signal });
          return generation as Generation;
        },
        release: () => lease.release(),
      };
    },
    close: async () => {},
  };
}

/**
 * Every end-of-sequence id of the model (its EOS token and generation_config.json's
 * `eos_token_id`s) plus the request's own `stop_token_ids`: as in vLLM, asking
 * for more stop ids never turns the EOS off.
 */
function stopIds(model: PolicyModel, params: SamplingParams): number[] {
  const ids = new Set(model.tokenizer.eosIds);
  for (const id of params.stopTokenIds ?? []) ids.add(id);
  return [...ids];
}

function checkGenerations(out: Generation[], expected: number): Generation[] {
  if (out.length !== expected) throw new AppError(ErrorCode.Internal, `policy returned ${out.length} generations for ${expected} prompts`);
  for (const g of out) {
    if (g.tokenIds.length !== g.logprobs.length) throw new AppError(ErrorCode.Internal, 'policy returned token ids and log-probs of different lengths');
  }
  return out;
}
