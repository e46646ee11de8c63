import { trace } from '@opentelemetry/api';
import { pino } from 'pino';

/** The structured logger type services pass around. */
export type Logger = pino.Logger;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  service: string;
  /** @default 'info' */
  level?: string;
  /** Where lines go. @default stdout */
  destination?: pino.DestinationStream;
}

/**
 * JSON logger (pino) that stamps every line with the service name and, when a
 * span is active, its trace and span ids so logs join traces.
 */
export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const ctx = span.spanContext();
      return { trace_id: ctx.traceId, span_id: ctx.spanId };
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
