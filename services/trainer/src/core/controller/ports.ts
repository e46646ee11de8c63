// What the training loop needs from the outside world. Adapters (NATS to the
// policy worker, the generation service and the reward services) implement
// these; tests can implement them in-process.
import type { DatasetRow } from '../../data/dataset-row.ts';
import type { MetricsRecord } from '../../metrics/step-metrics.ts';

/** Sampling of one rollout call (verl rollout / val_kwargs). */
export interface RolloutSampling {
  temperature: number;
  topP: number;
  topK: number;
  n: number;
  maxTokens: number;
  seed: number;
}

/** One generated response, token level. */
export interface RolloutResult {
  /** Index of its row in the request. */
  row: number;
  /** Shared by the n responses of one prompt. */
  uid: string;
  promptIds: number[];
  responseIds: number[];
  responseMask: number[];
  /** The response text (reward input). */
  text: string;
  /** Weights version that produced it. */
  modelVersion: string;
  /** Set when this slot failed; the other fields are then empty. */
  error?: { code: string; message: string };
}

/** Takes one rollout as soon as it is known, at its index in the batch's results. */
export type OnRolloutResult = (index: number, result: RolloutResult) => void;

/** Produces responses for dataset rows. */
export interface RolloutPort {
  /** `onResult` sees each result as it finishes (where the port can tell), once, before the batch resolves with them all. */
  rollout(
    rows: readonly DatasetRow[],
    sampling: RolloutSampling,
    modelVersion: string,
    signal: AbortSignal,
    onResult?: OnRolloutResult,
  ): Promise<RolloutResult[]>;
  /** Seconds the generating side reported computing since the last call (0 when it reports none). */
  takeComputeSeconds(): number;
}

/** Padded widths of a batch the worker should use (one compiled shape per job). */
export interface PadWidths {
  promptWidth: number;
  responseWidth: number;
}

/** Story signals' second scoring of some pairs' responses, after their prompts without the context r. */
export interface WithoutContextPass {
  entries: Array<{ index: number; prompt: number[] }>;
  /** The job's longest prompt without r (tokens). */
  promptWidth: number;
}

/** The policy worker as the loop sees it (protocol.ts bodies, camel-cased where it helps). */
export interface PolicyPort {
  logprobs(
    model: 'actor' | 'ref',
    pairs: ReadonlyArray<{ prompt: number[]; response: number[] }>,
    entropy: boolean,
    widths?: PadWidths,
    withoutContext?: WithoutContextPass,
  ): Promise<{ logprobs: number[][]; entropies?: number[][]; logprobsWithoutContext?: number[][]; withoutContextComputeS?: number }>;
  update(body: unknown): Promise<{ version: string; metrics: Record<string, number> }>;
  /** The critic's values of the state before each response token (GAE jobs). */
  values(pairs: ReadonlyArray<{ prompt: number[]; response: number[] }>, widths: PadWidths): Promise<number[][]>;
  /** One critic update (verl update_critic); returns its critic/* metrics. */
  updateCritic(body: unknown): Promise<Record<string, number>>;
  /** Publishes the current weights (and writes a checkpoint when `checkpointDir` is given); returns the version. */
  export(publish: boolean, checkpointDir?: string): Promise<string>;
  version(): Promise<string>;
  /** Seconds the worker reported computing since the last call (model time; the rest is bus and controller). */
  takeComputeSeconds(): number;
}

/** Sums the compute seconds a remote side reports, handed out (and reset) once per step. */
export function createComputeMeter(): { add(seconds: number | undefined): void; take(): number } {
  let total = 0;
  return {
    add: (seconds) => {
      total += seconds ?? 0;
    },
    take: () => {
      const t = total;
      total = 0;
      return t;
    },
  };
}

/** Where in the job a root span is (the adapter turns it into span attributes). */
export interface TraceAt {
  job: string;
  step: number;
  epoch?: number;
}

/**
 * Spans of the loop. The adapters back it with OpenTelemetry: one trace per
 * training step (root span `trainer.step`), a child span per stage named as its
 * `timing_s/<stage>` metric; the default does nothing. Calls made inside `fn`
 * (the NATS requests of the rollout, reward and policy ports) carry the
 * current span, so the services' spans join the step's trace.
 */
export interface TracePort {
  /** Runs `fn` as the root span `name` of a new trace. */
  root<T>(name: string, at: TraceAt, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` in a child span `name` of the current one. */
  span<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** `fn` bound to the current span: what it starts later, from wherever it is called, nests there. */
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
}

/** A {@link TracePort} that only runs the functions. */
export const NO_TRACE: TracePort = {
  root: (_name, _at, fn) => fn(),
  span: (_name, fn) => fn(),
  bind: (fn) => fn,
};

/** An append-only log of step metrics; the JSON-lines file is metrics/jsonl-writer.ts. */
export interface MetricsLog {
  readonly path: string;
  /** Appends one record as one line, in call order. */
  append(record: MetricsRecord): Promise<void>;
  close(): Promise<void>;
}
