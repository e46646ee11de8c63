// A trained reward model as a backend: each item rendered with the model's own
// chat template and tokenizer (the conversation, then the response as the
// assistant's turn, as verl's reward-model worker re-renders when the policy's
// tokenizer differs), the one-label head read at the last token
// (...ForTokenClassification) or the last non-pad token
// (...ForSequenceClassification), items batched by token count, on a local
// engine (jax-js, the PyTorch child, onnxruntime).
import type { Tokenizer } from '@rl/policy';
import { AppError, ErrorCode } from '@rl/service-kit';
import type { ItemOutcome, ModelItem, RewardBackend } from '../core/backend.ts';
import { readIndex, type ReadAt } from './read-position.ts';
import { tokenBatches } from './token-batches.ts';
import type { ScoreEngine } from './score-engine.ts';

/** What {@link TrainedRewardModel} needs: its name, the model's tokenizer, where the head is read, the engine. */
export interface TrainedRewardModelOptions {
  name: string;
  tokenizer: Tokenizer;
  readAt: ReadAt;
  /** config.json's pad_token_id (null when absent), which `last_non_pad` skips. */
  padId: number | null;
  engine: ScoreEngine;
  /** Padded tokens (rows x longest row) per engine call. */
  maxBatchTokens: number;
}

type Rendered = { ids: number[] } | { outcome: ItemOutcome };

/** One reward-model directory loaded on an engine. */
export class TrainedRewardModel implements RewardBackend {
  readonly kind = 'reward_model' as const;
  readonly name: string;
  readonly #o: TrainedRewardModelOptions;
  /** The engine answers one call at a time; batches of concurrent requests queue here. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: TrainedRewardModelOptions) {
    this.name = options.name;
    this.#o = options;
  }

  /** The most tokens an item may render to (up to the token the head reads). */
  get maxItemTokens(): number {
    return this.#o.engine.maxRowTokens;
  }

  async score(items: readonly ModelItem[], signal: AbortSignal): Promise<ItemOutcome[]> {
    const rendered = items.map((item) => this.#render(item));
    const out: ItemOutcome[] = rendered.map((r) => ('outcome' in r ? r.outcome : { error: { code: ErrorCode.Internal, message: 'not scored' } }));
    const todo = rendered.flatMap((r, i) => ('ids' in r ? [{ at: i, ids: r.ids }] : []));
    const { engine } = this.#o;
    for (const batch of tokenBatches(
      todo.map((t) => engine.rowWidth(t.ids.length)),
      this.#o.maxBatchTokens,
    )) {
      const part = batch.map((k) => todo[k] as { at: number; ids: number[] });
      if (signal.aborted) {
        for (const p of part)
          out[p.at] = { error: { code: ErrorCode.Timeout, message: `reward model ${this.name}: the request ended before this item was scored` } };
        continue;
      }
      try {
        const scores = await this.#exclusive(() => engine.scores(part.map((p) => p.ids)));
        part.forEach((p, k) => {
          out[p.at] = { score: scores[k] as number, extra: { model: this.name, engine: engine.kind, tokens: p.ids.length } };
        });
      } catch (err) {
        const error =
          err instanceof AppError
            ? { code: err.code, message: `reward model ${this.name}: ${err.message}` }
            : { code: ErrorCode.Internal, message: String(err) };
        for (const p of part) out[p.at] = { error };
      }
    }
    return out;
  }

  ready(): boolean {
    return this.#o.engine.alive();
  }

  close(): Promise<void> {
    return this.#o.engine.close();
  }

  /** The item's ids up to the token the head reads, or the item's error. */
  #render(item: ModelItem): Rendered {
    let ids: number[];
    try {
      ids = this.#o.tokenizer.applyChatTemplate([...item.messages, { role: 'assistant', content: item.response }]);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        outcome: {
          error: { code: ErrorCode.InvalidParams, message: `reward model ${this.name}: its chat template cannot render this conversation: ${message}` },
        },
      };
    }
    const read = ids.slice(0, readIndex(ids, this.#o.readAt, this.#o.padId) + 1);
    if (read.length === 0) {
      return { outcome: { error: { code: ErrorCode.InvalidParams, message: `reward model ${this.name}: the conversation renders to no tokens` } } };
    }
    if (read.length > this.maxItemTokens) {
      return {
        outcome: {
          error: {
            code: ErrorCode.PayloadTooLarge,
            message: `reward model ${this.name}: the conversation and response render to ${read.length} tokens; this model reads at most ${this.maxItemTokens}`,
          },
          extra: { tokens: read.length, max_tokens: this.maxItemTokens },
        },
      };
    }
    return { ids: read };
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }
}
