// An LLM judge as a reward backend: each item's prompt rendered, asked within the
// judge's limits and deadline (retrying 429/5xx), answered from the cache when
// an identical request was answered before, and scored by the judge's parser.
// A failure is that item's error with the judge's raw text: never a 0.
import { createHash } from 'node:crypto';
import { AppError, ErrorCode, retry } from '@rl/service-kit/core';
import type { ItemOutcome, ModelItem, RewardBackend } from '../core/backend.ts';
import { AnswerCache } from './answer-cache.ts';
import { RetryableUpstream } from '../upstream/post-json.ts';
import { postChat } from './chat-client.ts';
import type { JudgeConfig } from './judge-config.ts';
import type { JudgeMetrics, JudgeRequestOutcome } from './judge-metrics.ts';
import { createParser, normalizeScore, type ScoreParser, stripThinking } from './parsers.ts';
import { JudgePrompt } from './prompt-template.ts';
import { JudgeLimiter, type LimiterClock } from './rate-limiter.ts';

/** What a judge takes from its surroundings; tests replace the time parts. */
export interface JudgeDeps {
  clock: LimiterClock;
  /** An item's deadline signal, from its first attempt; aborts with a TimeoutError DOMException. @default AbortSignal.timeout */
  deadline: (ms: number) => AbortSignal;
  fetch: typeof fetch;
  /** The service's judge metrics; none in tests that do not read them. */
  metrics?: JudgeMetrics;
}

const MAX_RAW_CHARS = 4000;

/** An LLM judge over an OpenAI-compatible chat endpoint. */
export class LlmJudge implements RewardBackend {
  readonly name: string;
  readonly kind = 'judge' as const;
  readonly #config: JudgeConfig;
  readonly #apiKey: string | undefined;
  readonly #deps: JudgeDeps;
  readonly #prompt: JudgePrompt;
  readonly #parser: ScoreParser;
  readonly #limiter: JudgeLimiter;
  readonly #cache: AnswerCache | undefined;
  readonly #url: string;
  // Passive reachability: a refused connection turns /readyz red until any HTTP answer comes back.
  #reachable = true;

  /** Throws a plain Error naming the key (`prompt`, `parser.pattern`) when the config cannot be compiled. */
  constructor(name: string, config: JudgeConfig, apiKey: string | undefined, deps: JudgeDeps) {
    this.name = name;
    this.#config = config;
    this.#apiKey = apiKey;
    this.#deps = deps;
    this.#prompt = new JudgePrompt(config.prompt, config.system);
    this.#parser = compileParser(config);
    this.#limiter = new JudgeLimiter({ ...limitsOf(config), clock: deps.clock, name });
    this.#cache = config.cache.enabled ? new AnswerCache(config.cache.max_entries) : undefined;
    this.#url = `${config.base_url.replace(/\/+$/, '')}/chat/completions`;
  }

  score(items: readonly ModelItem[], signal: AbortSignal): Promise<ItemOutcome[]> {
    return Promise.all(items.map((item) => this.#scoreOne(item, signal)));
  }

  ready(): boolean {
    return this.#reachable;
  }

  async close(): Promise<void> {}

  async #scoreOne(item: ModelItem, signal: AbortSignal): Promise<ItemOutcome> {
    const extra: Record<string, unknown> = { judge: this.name };
    let body: Record<string, unknown>;
    try {
      body = this.#body(item);
    } catch (err) {
      return failure(ErrorCode.BadRequest, `judge ${this.name}: prompt: ${message(err)}`, extra);
    }
    const key = createHash('sha256')
      .update(JSON.stringify([this.name, body]))
      .digest('hex');
    let text: string;
    try {
      const load = () => this.#ask(body, signal);
      const answer = this.#cache === undefined ? { text: await load(), shared: false } : await this.#cache.answer(key, load, signal);
      text = answer.text;
      extra.cached = answer.shared;
      if (answer.shared) this.#deps.metrics?.cacheHits.inc({ judge: this.name });
    } catch (err) {
      return this.#failed(err, signal, extra);
    }
    extra.judge_text = text.slice(0, MAX_RAW_CHARS);
    const parsed = this.#parser(stripThinking(text));
    const scored = !parsed.ok || this.#config.parser.type === 'yes_no' ? parsed : normalizeScore(parsed.value, this.#config.score_range);
    if (!scored.ok) {
      this.#deps.metrics?.parseFailures.inc({ judge: this.name });
      return failure(ErrorCode.JudgeUnparseable, `judge ${this.name}: ${scored.reason}`, extra);
    }
    if (parsed.ok) extra.judge_score = parsed.value;
    this.#cache?.keep(key, text);
    return { score: scored.value, extra };
  }

  /** The chat-completions body: rendered messages plus the judge's sampling. */
  #body(item: ModelItem): Record<string, unknown> {
    const { extra_body, ...sampling } = this.#config.sampling;
    return { ...extra_body, model: this.#config.model, messages: this.#prompt.render(item), ...sampling, stream: false };
  }

  /**
   * One request with the judge's retries; each attempt waits for the limits.
   * The item's deadline starts when its first attempt has its slot and its turn
   * on the rates, as verl's timeout wraps only the call: a large batch queued
   * behind max_rpm is paced, not timed out. Later waits and attempts count.
   */
  #ask(body: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const { retries, timeout_ms } = this.#config;
    const endpoint = { url: this.#url, apiKey: this.#apiKey, fetch: this.#deps.fetch, now: () => this.#deps.clock.now() };
    const expired = new AbortController();
    const deadline = AbortSignal.any([signal, expired.signal]);
    let started = false;
    let attempts = 0;
    return retry(
      () =>
        this.#limiter.run(async () => {
          if (!started) {
            started = true;
            const timer = this.#deps.deadline(timeout_ms);
            if (timer.aborted) expired.abort(timer.reason);
            else timer.addEventListener('abort', () => expired.abort(timer.reason), { once: true });
          }
          deadline.throwIfAborted();
          const sentMs = this.#deps.clock.now();
          this.#counted(++attempts);
          try {
            const text = await postChat(endpoint, body, deadline);
            this.#reachable = true;
            this.#observed('ok', sentMs);
            return text;
          } catch (err) {
            if (!deadline.aborted) this.#reachable = !(err instanceof RetryableUpstream && err.status === 0);
            this.#observed(deadline.aborted ? 'aborted' : outcomeOf(err), sentMs);
            throw err;
          }
        }, deadline),
      {
        retries: retries.max,
        isRetryable: (err) => err instanceof RetryableUpstream,
        delayMs: (attempt, err) => Math.max((err as RetryableUpstream).retryAfterMs, retries.base_ms * 2 ** (attempt - 1)),
        signal: deadline,
        sleep: (ms, s) => this.#deps.clock.sleep(ms, s),
      },
    );
  }

  /** One request sent: the `attempt`-th of its item. */
  #counted(attempt: number): void {
    const m = this.#deps.metrics;
    m?.requests.inc({ judge: this.name });
    if (attempt > 1) m?.retries.inc({ judge: this.name });
  }

  #observed(outcome: JudgeRequestOutcome, sentMs: number): void {
    const m = this.#deps.metrics;
    if (outcome === 'rate_limited') m?.rateLimited.inc({ judge: this.name });
    m?.latency.observe({ judge: this.name, outcome }, Math.max(0, this.#deps.clock.now() - sentMs) / 1000);
  }

  #failed(err: unknown, signal: AbortSignal, extra: Record<string, unknown>): ItemOutcome {
    const who = `judge ${this.name}`;
    if (signal.aborted) return failure(ErrorCode.Timeout, `${who}: the request was cancelled or ran out of time before the judge answered`, extra);
    if (err instanceof RetryableUpstream)
      return failure(ErrorCode.Unavailable, `${who}: gave up after ${this.#config.retries.max + 1} attempts: ${err.message}`, extra);
    if (err instanceof AppError) {
      const raw = err.details?.raw;
      if (typeof raw === 'string') extra.judge_text = raw;
      return failure(err.code, `${who}: ${err.message}`, extra);
    }
    // The deadline's own reason (AbortSignal.timeout's): the sleep, the queue and fetch all reject with it.
    if (err instanceof DOMException && err.name === 'TimeoutError') {
      this.#deps.metrics?.timeouts.inc({ judge: this.name });
      return failure(ErrorCode.Timeout, `${who}: no usable answer within ${this.#config.timeout_ms} ms of the first attempt`, extra);
    }
    return failure(ErrorCode.Internal, `${who}: ${message(err)}`, extra);
  }
}

function outcomeOf(err: unknown): JudgeRequestOutcome {
  if (!(err instanceof RetryableUpstream)) return 'rejected';
  if (err.status === 429) return 'rate_limited';
  return err.status === 0 ? 'connection_failed' : 'server_error';
}

function failure(code: ErrorCode, msg: string, extra: Record<string, unknown>): ItemOutcome {
  return { error: { code, message: msg }, extra };
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function limitsOf({ limits }: JudgeConfig) {
  return { maxConcurrent: limits.max_concurrent, maxRpm: limits.max_rpm, maxTpm: limits.max_tpm, tokensPerRequest: limits.estimated_tokens_per_request };
}

function compileParser(config: JudgeConfig): ScoreParser {
  const spec = config.parser;
  if (spec.type === 'pattern') {
    let groups: number;
    try {
      groups = (new RegExp(`${spec.pattern}|`, spec.flags).exec('')?.length ?? 1) - 1;
    } catch (err) {
      throw new Error(`parser.pattern: not a valid regular expression (${message(err)})`, { cause: err });
    }
    if (groups < 1) throw new Error('parser.pattern: needs a capture group around the number, e.g. Score:\\s*(\\d+)');
  }
  if (spec.type === 'yes_no' && (config.score_range[0] !== 0 || config.score_range[1] !== 1)) {
    throw new Error('score_range: a yes_no judge scores 1 or 0; leave score_range out');
  }
  return createParser(spec);
}
