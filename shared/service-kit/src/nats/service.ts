import { Svcm, type Service, type ServiceMsg } from '@nats-io/services';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import { AppError, ErrorCode, toErrorBody } from '../errors.ts';
import { parseJsonText, validationError } from '../validation.ts';
import type { Logger } from '../logger.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { assembleChunks, chunkHeaders, chunkLimit, serveChunks, splitChunks } from './chunking.ts';
import { readCorrelation, type Correlation } from './headers.ts';
import { PROGRESS_HEADER } from './request-once.ts';

/** What a handler gets besides its parsed input. */
export interface RpcContext extends Correlation {
  /** Aborted when the service is stopping past its grace period. */
  signal: AbortSignal;
  /**
   * Sends `data` (JSON) to the caller ahead of the reply, when the request asked for progress
   * ({@link PROGRESS_HEADER}); absent otherwise. Best effort: one that does not fit in a message is not
   * sent, so the reply must carry everything.
   */
  progress?: (data: unknown) => void;
}

/** One request/reply endpoint whose JSON input the edge parses with `request` before `handle`. */
export interface ParsedEndpoint<I> {
  /** Endpoint name shown by `nats micro info` (letters, digits, `-`, `_`). */
  name: string;
  subject: string;
  request: z.ZodType<I>;
  handle(input: I, ctx: RpcContext): Promise<unknown>;
}

/**
 * An endpoint that takes the reassembled payload bytes as they are and answers
 * with JSON text, for services that validate off the event loop (same schema,
 * in a worker). Thrown {@link AppError}s are answered like those of parsed endpoints.
 */
export interface RawEndpoint {
  name: string;
  subject: string;
  handleRaw(data: Uint8Array, ctx: RpcContext): Promise<string | Uint8Array>;
}

/** A NATS endpoint of either kind. */
export type EndpointSpec<I = unknown> = ParsedEndpoint<I> | RawEndpoint;

/** Erases a parsed endpoint's input type so endpoints of different inputs fit one list. */
export function parsedEndpoint<I>(spec: ParsedEndpoint<I>): EndpointSpec {
  return spec as unknown as EndpointSpec;
}

/** Options of {@link startNatsService}. */
export interface NatsServiceOptions {
  nc: NatsConnection;
  /** Service name; also the queue group, so instances share load. */
  name: string;
  version: string;
  description: string;
  endpoints: ReadonlyArray<EndpointSpec>;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Largest reassembled request accepted. */
  maxBodyBytes: number;
  /** Timeout of each chunk pull. */
  chunkTimeoutMs: number;
}

/** A running NATS service and its graceful stop. */
export interface NatsService {
  readonly service: Service;
  /** Stops taking requests, waits up to `graceMs` for in-flight ones, then aborts them. */
  stop(graceMs: number): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Registers endpoints with the NATS services framework (`$SRV.PING|INFO|STATS`,
 * queue group = service name). Each request is reassembled if chunked, parsed
 * with the endpoint's zod schema, handed to the core, and answered — chunked when
 * the reply exceeds `max_payload`. Errors go out through `respondError` with our
 * `{error: {code, message}}` body so clients rebuild the same {@link AppError}.
 */
export async function startNatsService(options: NatsServiceOptions): Promise<NatsService> {
  const { nc, name, version, description, endpoints, logger, metrics, maxBodyBytes, chunkTimeoutMs } = options;
  const service = await new Svcm(nc).add({ name, version, description, queue: name });
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();

  for (const ep of endpoints) {
    service.addEndpoint(ep.name, {
      subject: ep.subject,
      queue: name,
      handler: (err, msg) => {
        if (err !== null) {
          logger.error({ err, subject: ep.subject }, 'endpoint subscription failed');
          return;
        }
        const p = handleOne(ep, msg).finally(() => inFlight.delete(p));
        inFlight.add(p);
      },
    });
  }

  async function handleOne(ep: EndpointSpec, msg: ServiceMsg): Promise<void> {
    const started = performance.now();
    const corr = readCorrelation(msg.headers);
    let outcome = 'ok';
    try {
      const raw = await assembleChunks(nc, msg.data, msg.headers, { timeoutMs: chunkTimeoutMs, maxBytes: maxBodyBytes });
      const progress = progressOf(msg);
      const ctx: RpcContext = { ...corr, signal: stopping.signal, ...(progress !== undefined && { progress }) };
      if ('handleRaw' in ep) {
        const out = await ep.handleRaw(raw, ctx);
        respond(msg, typeof out === 'string' ? encoder.encode(out) : out);
      } else {
        const result = await ep.handle(parseInput(ep, raw), ctx);
        respond(msg, encoder.encode(JSON.stringify(result)));
      }
    } catch (e) {
      outcome = 'error';
      const body = toErrorBody(e);
      if (!(e instanceof AppError)) logger.error({ err: e, subject: ep.subject, requestId: corr.requestId }, 'handler failed');
      const status = e instanceof AppError ? e.status : 500;
      msg.respondError(status, `${body.code}: ${body.message}`.slice(0, 512), encoder.encode(JSON.stringify({ error: body })));
    } finally {
      metrics.natsRequests.observe({ subject: ep.subject, outcome }, (performance.now() - started) / 1000);
    }
  }

  function progressOf(msg: ServiceMsg): ((data: unknown) => void) | undefined {
    if (msg.headers?.get(PROGRESS_HEADER) !== '1' || msg.reply === undefined || msg.reply === '') return undefined;
    const reply = msg.reply;
    return (data) => {
      const bytes = encoder.encode(JSON.stringify(data));
      if (bytes.length > chunkLimit(nc)) return;
      const h = headers();
      h.set(PROGRESS_HEADER, '1');
      nc.publish(reply, bytes, { headers: h });
    };
  }

  function respond(msg: ServiceMsg, data: Uint8Array): void {
    const chunks = splitChunks(data, chunkLimit(nc));
    if (chunks.length === 1) {
      msg.respond(data);
      return;
    }
    const { inbox } = serveChunks(nc, chunks, chunkTimeoutMs);
    msg.respond(chunks[0], { headers: chunkHeaders(chunks.length, inbox) });
  }

  return {
    service,
    async stop(graceMs) {
      await service.stop();
      const all = Promise.allSettled([...inFlight]);
      const timer = setTimeout(() => stopping.abort(new AppError(ErrorCode.Unavailable, 'service stopping', { retryable: true })), graceMs);
      await all;
      clearTimeout(timer);
    },
  };
}

function parseInput(ep: ParsedEndpoint<unknown>, raw: Uint8Array): unknown {
  const parsed = ep.request.safeParse(parseJsonText(decoder.decode(raw), 'payload'));
  if (!parsed.success) throw validationError(parsed.error, 'payload');
  return parsed.data;
}
