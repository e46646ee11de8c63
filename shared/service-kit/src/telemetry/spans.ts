// Span helpers on @opentelemetry/api. With telemetry off (no SDK registered)
// every span is a no-op and the helpers only run `fn`; with it on, spans nest
// through the Node SDK's AsyncLocalStorage context, so a NATS request sent from
// inside a span carries that span as the `traceparent` (nats/headers.ts).
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/** Instrumentation scope of the spans opened through these helpers. */
const RL_TRACER = '@rl/service-kit';

/**
 * Attribute names of the project's spans (one naming, documented in the README's
 * observability section). Project attributes live under `rl.`; the NATS call
 * spans also carry OpenTelemetry's messaging conventions.
 */
export const SpanAttr = {
  /** The trainer job id (`trainer.step` and its stages). */
  JobId: 'rl.job_id',
  /** The global training step (1-based, verl's `global_steps`). */
  Step: 'rl.step',
  /** The epoch the step's batch comes from. */
  Epoch: 'rl.epoch',
  /** Rows/items/samples a call carries. */
  Items: 'rl.items',
  /** verl `data_source` values of the items of a call, distinct and sorted (string array). */
  DataSources: 'rl.data_sources',
  /** Weights version a rollout call asks for. */
  ModelVersion: 'rl.model_version',
  /** Which edge a server span came through: `nats` or `http`. */
  Edge: 'rl.edge',
  MessagingSystem: 'messaging.system',
  MessagingDestination: 'messaging.destination.name',
} as const;

/** Options of {@link withSpan}. */
export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** Parent context; the active one when absent. */
  parent?: Context;
  /** Starts a new trace whatever is active (the trainer's one trace per step). */
  root?: boolean;
}

/**
 * Runs `fn` in an active span named `name`: the span ends when `fn` settles,
 * and a rejection is recorded on it (status ERROR) and rethrown.
 */
export function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const { attributes, kind = SpanKind.INTERNAL, root = false } = options;
  const parent = root ? ROOT_CONTEXT : (options.parent ?? context.active());
  return trace.getTracer(RL_TRACER).startActiveSpan(name, { kind, ...(attributes && { attributes }), root }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * `fn` bound to the context active now: wherever it is called from later (a NATS message callback, a timer),
 * the spans it opens are children of the span active here.
 */
export function bindActiveContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return context.bind(context.active(), fn);
}

/**
 * A server span continuing the caller's W3C `traceparent` (from HTTP or NATS
 * headers); without one it is a child of the active span, if any.
 */
export function withServerSpan<T>(name: string, traceparent: string | undefined, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  const active = context.active();
  const parent = traceparent === undefined ? active : propagation.extract(active, { traceparent });
  return withSpan(name, { kind: SpanKind.SERVER, attributes, parent }, fn);
}

/**
 * A client span around one NATS request to `subject` (named after the subject),
 * so the request's `traceparent` is this span and the service's server span is
 * its child.
 */
export function withNatsClientSpan<T>(subject: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return withSpan(
    subject,
    {
      kind: SpanKind.CLIENT,
      attributes: { [SpanAttr.MessagingSystem]: 'nats', [SpanAttr.MessagingDestination]: subject, ...attributes },
    },
    fn,
  );
}

/** `rl.items` and `rl.data_sources` of a batch of items that have a verl `data_source`. */
export function dataSourceAttributes(items: ReadonlyArray<{ data_source?: unknown }>): Attributes {
  const sources = [...new Set(items.map((i) => i.data_source).filter((s): s is string => typeof s === 'string'))].sort();
  return { [SpanAttr.Items]: items.length, [SpanAttr.DataSources]: sources };
}
