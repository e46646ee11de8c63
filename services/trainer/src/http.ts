import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { problemDoc, type AppEnv } from '@rl/service-kit';
import { streamSSE } from 'hono/streaming';
import { followJobEvents, toServerSentEvent } from './jobs/follow-job-events.ts';
import type { JobManager, JobView } from './jobs/job-manager.ts';
import { JobIdParam, JobMetricsResponse, JobViewSchema, MetricsQuery, PlotsResponse, SubmitJobRequest } from './schemas.ts';

const job = (description: string) => ({ description, content: { 'application/json': { schema: JobViewSchema } } });

const submitRoute = createRoute({
  method: 'post',
  path: '/v1/jobs',
  operationId: 'createJob',
  summary: 'Submit a training job',
  description: 'Validates the config (every bad key is named at once) and queues the job; jobs of one trainer run one at a time.',
  request: { body: { required: true, content: { 'application/json': { schema: SubmitJobRequest } } } },
  responses: {
    201: job('The queued job'),
    400: problemDoc('Invalid config; the message lists every bad key path'),
    409: problemDoc('A job with this id exists'),
  },
});

const listRoute = createRoute({
  method: 'get',
  path: '/v1/jobs',
  operationId: 'listJobs',
  summary: 'List jobs',
  responses: { 200: { description: 'Every job this instance knows', content: { 'application/json': { schema: JobViewSchema.array() } } } },
});

const getRoute = createRoute({
  method: 'get',
  path: '/v1/jobs/{id}',
  operationId: 'getJob',
  summary: 'A job’s state and latest metrics',
  request: { params: JobIdParam },
  responses: { 200: job('The job'), 404: problemDoc('No such job') },
});

const metricsRoute = createRoute({
  method: 'get',
  path: '/v1/jobs/{id}/metrics',
  operationId: 'getJobMetrics',
  summary: 'Per-step metrics, as JSON or a server-sent-event stream',
  description:
    'JSON: every step so far. With `?stream=true` or `Accept: text/event-stream`: events `step`, `validation`, `checkpoint`, `state` (the same bodies as NATS `trainer.events.<job>`), past steps replayed first; the stream ends after the job’s final state.',
  request: { params: JobIdParam, query: MetricsQuery },
  responses: {
    200: {
      description: 'Metrics',
      content: { 'application/json': { schema: JobMetricsResponse }, 'text/event-stream': { schema: { type: 'string' } } },
    },
    404: problemDoc('No such job'),
  },
});

const cancelRoute = createRoute({
  method: 'delete',
  path: '/v1/jobs/{id}',
  operationId: 'cancelJob',
  summary: 'Cancel a job',
  description: 'A queued job is dropped; a running one stops after its current stage and keeps its checkpoints (resume by submitting the same config).',
  request: { params: JobIdParam },
  responses: { 200: job('The job, cancelled or already final'), 404: problemDoc('No such job') },
});

const plotsRoute = createRoute({
  method: 'post',
  path: '/v1/jobs/{id}/plots',
  operationId: 'renderJobPlots',
  summary: 'Render the job’s curves now',
  request: { params: JobIdParam },
  responses: { 200: { description: 'The SVG files written', content: { 'application/json': { schema: PlotsResponse } } }, 404: problemDoc('No such job') },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [submitRoute, listRoute, getRoute, metricsRoute, cancelRoute, plotsRoute];

/** What the routes need from the service. */
export interface TrainerApi<C> {
  jobs: JobManager<C>;
  /** Validates a submitted config (throws a 400 AppError naming every bad key). */
  validate(config: unknown, overrides: readonly string[]): C;
  /** Display name of a job (the config's experiment name). */
  nameOf(config: C): string;
  /** Writes the job's plots now. */
  renderPlots(id: string): Promise<string[]>;
  /**
   * Interval of the SSE comment sent on a quiet event stream. A queued job or a
   * long stage emits nothing for minutes, and clients give up on a silent body
   * (undici, fetch in Node: after 300 s). @default 15000
   */
  keepAliveMs?: number;
}

/** The comment line of a keep-alive (clients ignore lines that start with ':'). */
export const KEEP_ALIVE = ': keep-alive\n\n';

/** Adds the trainer routes to `app`. */
export function addRoutes<C>(app: OpenAPIHono<AppEnv>, api: TrainerApi<C>): void {
  app.openapi(submitRoute, (c) => {
    const { config, overrides, id } = c.req.valid('json');
    const valid = api.validate(config, overrides);
    return c.json(api.jobs.submit(valid, api.nameOf(valid), id), 201);
  });
  app.openapi(listRoute, (c) => c.json(api.jobs.list(), 200));
  app.openapi(getRoute, (c) => c.json(api.jobs.get(c.req.valid('param').id), 200));
  app.openapi(cancelRoute, (c) => c.json(api.jobs.cancel(c.req.valid('param').id), 200));
  app.openapi(plotsRoute, async (c) => c.json({ files: await api.renderPlots(api.jobs.get(c.req.valid('param').id).id) }, 200));
  app.openapi(metricsRoute, (c) => {
    const { id } = c.req.valid('param');
    const view: JobView = api.jobs.get(id);
    const wantsStream = c.req.valid('query').stream === 'true' || (c.req.header('accept') ?? '').includes('text/event-stream');
    if (!wantsStream) return c.json({ job: view, metrics: api.jobs.metrics(id) }, 200);
    return streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      // Each write is one whole message, so a keep-alive never splits an event.
      const keepAlive = setInterval(() => void stream.write(KEEP_ALIVE).catch(() => abort.abort()), api.keepAliveMs ?? 15_000);
      try {
        for await (const e of followJobEvents(api.jobs, id, abort.signal)) await stream.writeSSE(toServerSentEvent(e));
      } finally {
        clearInterval(keepAlive);
      }
    });
  });
}
