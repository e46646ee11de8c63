// A trained reward model served by vLLM, as verl's reward loop scores with one
// (reward_loop.py, compute_score_disrm, at b178a3c): each item's conversation
// plus the response as the assistant's turn rendered to text with the reward
// model's own chat template (add_generation_prompt off), a leading BOS token
// string removed (the server's tokenizer adds its own), then one `/classify`
// request per item. Each attempt has its own time limit; time-outs, 429, 5xx
// and refused connections are retried with the kit's retry; every failure is
// that item's error.
import type { Tokenizer } from '@rl/policy';
import { AppError, ErrorCode, retry, runPool, sleepMs } from '@rl/service-kit/core';
import type { ItemOutcome, ModelItem, RewardBackend } from '../core/backend.ts';
import { RetryableUpstream } from '../upstream/post-json.ts';
import { postClassify } from './vllm-classify.ts';

/** What {@link VllmRewardModel} needs. */
export interface VllmRewardModelOptions {
  name: string;
  /** `http://host:port/classify`. */
  url: string;
  /** The served model name. */
  model: string;
  /** The reward model's tokenizer (its chat template renders each item). */
  tokenizer: Tokenizer;
  /** config.json's max_position_embeddings: a longer item is refused here, not sent. */
  maxTokens: number | null;
  /** Per-attempt limit. */
  timeoutMs: number;
  /** @default 3 */
  retries?: number;
  /** First backoff, doubled per attempt (a longer Retry-After wins). @default 500 */
  backoffMs?: number;
  /** Requests in flight at once. @default 16 */
  maxConcurrent?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** One attempt's time limit as a signal; tests abort it themselves. @default AbortSignal.timeout */
  attemptDeadline?: (ms: number) => AbortSignal;
}

/** An attempt that ran out of its own time (the item's request still live). */
class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

export class VllmRewardModel implements RewardBackend {
  readonly kind = 'reward_model' as const;
  readonly name: string;
  readonly #o: VllmRewardModelOptions;
  /** False after an item found the server unreachable, true again after an answer. */
  #reachable = true;

  constructor(options: VllmRewardModelOptions) {
    this.name = options.name;
    this.#o = options;
  }

  async score(items: readonly ModelItem[], signal: AbortSignal): Promise<ItemOutcome[]> {
    const out: ItemOutcome[] = items.map(() => ({ error: { code: ErrorCode.Internal, message: 'not scored' } }));
    await runPool(
      items.map((item, at) => ({ item, at })),
      this.#o.maxConcurrent ?? 16,
      async ({ item, at }) => {
        out[at] = await this.#scoreOne(item, signal);
      },
    );
    return out;
  }

  ready(): boolean {
    return this.#reachable;
  }

  async close(): Promise<void> {}

  /** The text verl posts: the chat template's render without a leading BOS string; or the item's error. */
  render(item: ModelItem): { input: string; tokens: number } | { outcome: ItemOutcome } {
    const { tokenizer } = this.#o;
    let input: string;
    try {
      input = tokenizer.renderChatTemplate([...item.messages, { role: 'assistant', content: item.response }], { addGenerationPrompt: false });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        outcome: {
          error: { code: ErrorCode.InvalidParams, message: `reward model ${this.name}: its chat template cannot render this conversation: ${message}` },
        },
      };
    }
    const bos = tokenizer.bosId === null ? '' : tokenizer.decode([tokenizer.bosId], { keepSpecial: true });
    if (bos !== '' && input.startsWith(bos)) input = input.slice(bos.length);
    const tokens = tokenizer.encode(input, { allowSpecial: true }).length;
    const max = this.#o.maxTokens;
    if (max !== null && tokens > max) {
      return {
        outcome: {
          error: {
            code: ErrorCode.PayloadTooLarge,
            message: `reward model ${this.name}: the conversation and response render to ${tokens} tokens; this model reads at most ${max}`,
          },
          extra: { tokens, max_tokens: max },
        },
      };
    }
    return { input, tokens };
  }

  async #scoreOne(item: ModelItem, signal: AbortSignal): Promise<ItemOutcome> {
    const rendered = this.render(item);
    if ('outcome' in rendered) return rendered.outcome;
    const { timeoutMs, retries = 3, backoffMs = 500, fetch = globalThis.fetch, sleep = sleepMs, attemptDeadline = (ms) => AbortSignal.timeout(ms) } = this.#o;
    const endpoint = { url: this.#o.url, model: this.#o.model, fetch };
    const extra = { model: this.name, engine: 'vllm', tokens: rendered.tokens };
    let attempts = 0;
    try {
      const score = await retry(
        async () => {
          attempts++;
          const deadline = attemptDeadline(timeoutMs);
          try {
            return await postClassify(endpoint, rendered.input, AbortSignal.any([signal, deadline]));
          } catch (err) {
            if (deadline.aborted && !signal.aborted) throw new AttemptTimeout(`no answer within ${timeoutMs} ms`);
            throw err;
          }
        },
        {
          retries,
          signal,
          sleep,
          isRetryable: (err) => err instanceof RetryableUpstream || err instanceof AttemptTimeout,
          delayMs: (n, err) => Math.max(backoffMs * 2 ** (n - 1), err instanceof RetryableUpstream ? err.retryAfterMs : 0),
        },
      );
      this.#reachable = true;
      return { score, extra: { ...extra, attempts } };
    } catch (err) {
      if (err instanceof RetryableUpstream && err.status === 0) this.#reachable = false;
      const where = `reward model ${this.name} (vLLM ${this.#o.url})`;
      if (signal.aborted)
        return { error: { code: ErrorCode.Timeout, message: `${where}: the request ended before this item was scored` }, extra: { ...extra, attempts } };
      if (err instanceof AttemptTimeout)
        return { error: { code: ErrorCode.Timeout, message: `${where}: ${err.message}, ${attempts} attempts` }, extra: { ...extra, attempts } };
      if (err instanceof RetryableUpstream)
        return { error: { code: ErrorCode.UpstreamError, message: `${where}: ${err.message} after ${attempts} attempts` }, extra: { ...extra, attempts } };
      if (err instanceof AppError) return { error: { code: err.code, message: `${where}: ${err.message}` }, extra: { ...extra, attempts } };
      return { error: { code: ErrorCode.Internal, message: `${where}: ${String(err)}` }, extra: { ...extra, attempts } };
    }
  }
}
