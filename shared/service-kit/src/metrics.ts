import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one service process. */
export interface ServiceMetrics {
  readonly registry: Registry;
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;
  readonly natsRequests: Histogram<'subject' | 'outcome'>;
  readonly itemErrors: Counter<'code'>;
}

/** Creates a registry with process metrics plus the request histograms every service shares. */
export function createMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  return {
    registry,
    httpRequests: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets,
      registers: [registry],
    }),
    natsRequests: new Histogram({
      name: 'nats_request_duration_seconds',
      help: 'NATS request handling latency by subject and outcome',
      labelNames: ['subject', 'outcome'],
      buckets,
      registers: [registry],
    }),
    itemErrors: new Counter({
      name: 'item_errors_total',
      help: 'Per-item errors returned in batch results, by code',
      labelNames: ['code'],
      registers: [registry],
    }),
  };
}
