// Prometheus counters of the LLM judges, per judge, on the service's /metrics
// registry: what a team running an API judge watches (429s, retries, time-outs,
// unparseable answers, cache hits, the upstream's latency).
import { Counter, Histogram, type Registry } from 'prom-client';

/** How one request to a judge's endpoint ended. */
export type JudgeRequestOutcome = 'ok' | 'rate_limited' | 'server_error' | 'connection_failed' | 'rejected' | 'aborted';

/** The judges' metrics; every series is labelled by `judge`. */
export interface JudgeMetrics {
  /** HTTP requests sent to the judge's endpoint (each attempt). */
  readonly requests: Counter<'judge'>;
  /** Attempts after an item's first (a 429, 5xx or refused connection retried). */
  readonly retries: Counter<'judge'>;
  /** 429 answers. */
  readonly rateLimited: Counter<'judge'>;
  /** Items answered from the cache or by an identical request in flight. */
  readonly cacheHits: Counter<'judge'>;
  /** Items whose answer had no usable score (`judge_unparseable`). */
  readonly parseFailures: Counter<'judge'>;
  /** Items whose judge deadline (`timeout_ms`) passed before a usable answer. */
  readonly timeouts: Counter<'judge'>;
  /** Seconds per request to the judge's endpoint, by how it ended. */
  readonly latency: Histogram<'judge' | 'outcome'>;
}

/** Registers the judges' metrics on `registry` (the service's, from the kit's createMetrics). */
export function createJudgeMetrics(registry: Registry): JudgeMetrics {
  const counter = (name: string, help: string) => new Counter({ name, help, labelNames: ['judge'], registers: [registry] });
  return {
    requests: counter('judge_requests_total', 'HTTP requests sent to a judge endpoint (each attempt)'),
    retries: counter('judge_retries_total', 'Judge requests that retried an item after a 429, 5xx or refused connection'),
    rateLimited: counter('judge_rate_limited_total', 'Judge requests answered 429'),
    cacheHits: counter('judge_cache_hits_total', 'Judge items answered from the cache or by an identical request in flight'),
    parseFailures: counter('judge_parse_failures_total', 'Judge items whose answer had no usable score (judge_unparseable)'),
    timeouts: counter('judge_timeouts_total', 'Judge items whose deadline (timeout_ms) passed before a usable answer'),
    latency: new Histogram({
      name: 'judge_request_duration_seconds',
      help: 'Latency of one request to a judge endpoint, by outcome',
      labelNames: ['judge', 'outcome'],
      // Judges answer in seconds to minutes (reasoning models, queued API calls).
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
  };
}
