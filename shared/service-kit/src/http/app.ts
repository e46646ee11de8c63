import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { requestId, type RequestIdVariables } from 'hono/request-id';
import { timingSafeEqual } from 'node:crypto';
import { AppError, ErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { assertJsonDepth } from '../json-depth.ts';
import { validationError } from '../validation.ts';
import { DOCS_ASSETS_PREFIX, mountDocs } from './docs.ts';
import { finishOpenApiDocument } from './openapi-doc.ts';
import { problemResponse } from './problem.ts';

/** Result of a readiness probe: overall flag plus each named check. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, boolean>;
  /**
   * What an operator should know that does not gate readiness (a degraded but
   * working mode, e.g. no memory cgroups); omitted from `/readyz` when absent.
   */
  details?: Record<string, unknown>;
}

/** Options of {@link createApp}. */
export interface AppOptions {
  service: string;
  version: string;
  description: string;
  /** The service's default port (package.json `rl.port`), listed in `/openapi.json`'s servers. */
  defaultPort?: number | undefined;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** When set, every route but the probes, metrics and docs needs `Authorization: Bearer <token>`. */
  authToken?: string | undefined;
  /** Readiness checks (NATS connected, models loaded, ...). @default always ready */
  readiness?: () => Readiness;
}

/** Hono environment shared by every service app. */
export type AppEnv = { Variables: RequestIdVariables };

const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']);
/** Probes, metrics, the OpenAPI document and the docs page with its assets: open without a token, not access-logged. */
function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.has(path) || path.startsWith(DOCS_ASSETS_PREFIX);
}

/** OpenAPI title/version block used by `/openapi.json` and `make openapi`. */
function openApiInfo(o: Pick<AppOptions, 'service' | 'version' | 'description'>) {
  return { openapi: '3.1.0', info: { title: o.service, version: o.version, description: o.description } } as const;
}

/**
 * The Hono app every service starts from: request ids, access log and metrics,
 * body-size limit, optional bearer auth, problem+json errors (one `onError`,
 * one zod hook naming the failing field), health, readiness, metrics,
 * `/openapi.json` and a docs page. Services add their routes with `app.openapi`.
 */
export function createApp(options: AppOptions): OpenAPIHono<AppEnv> {
  const { logger, metrics, maxBodyBytes, authToken, readiness = (): Readiness => ({ ready: true, checks: {} }) } = options;
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target === 'json' ? 'body' : result.target);
    },
  });

  app.use(requestId());
  app.use(async function accessLog(c, next) {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = c.req.routePath === '/*' ? 'unmatched' : c.req.routePath;
    metrics.httpRequests.observe({ method: c.req.method, route, status: String(c.res.status) }, seconds);
    if (!isPublicPath(c.req.path)) {
      logger.info({ requestId: c.get('requestId'), method: c.req.method, path: c.req.path, status: c.res.status, durationMs: seconds * 1000 }, 'http request');
    }
  });
  if (authToken !== undefined) app.use(bearerAuth(authToken));
  app.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new AppError(ErrorCode.PayloadTooLarge, `request body exceeds ${maxBodyBytes} bytes`);
      },
    }),
  );
  // After the size limit, before any route parses the body (the text is cached for the validator).
  app.use(async function limitJsonDepth(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && (c.req.header('content-type') ?? '').includes('json')) assertJsonDepth(await c.req.text());
    await next();
  });

  app.onError(function toProblem(err, c) {
    if (err instanceof AppError) return problemResponse(err);
    if (err instanceof HTTPException) {
      // An exception that carries its own response (e.g. a 504 with Retry-After) is sent as is.
      if (err.res !== undefined) return err.getResponse();
      const code =
        err.status === 413
          ? ErrorCode.PayloadTooLarge
          : err.status === 401
            ? ErrorCode.Unauthorized
            : err.status === 404
              ? ErrorCode.NotFound
              : ErrorCode.BadRequest;
      return problemResponse(new AppError(code, err.message || 'bad request'));
    }
    logger.error({ err, requestId: c.get('requestId'), path: c.req.path }, 'unhandled error');
    return problemResponse(new AppError(ErrorCode.Internal, 'internal error'));
  });
  app.notFound((c) => problemResponse(new AppError(ErrorCode.NotFound, `no route for ${c.req.method} ${c.req.path}`)));

  app.get('/healthz', (c) => c.json({ status: 'ok', service: options.service }));
  app.get('/readyz', (c) => {
    const r = readiness();
    return c.json({ status: r.ready ? 'ready' : 'not_ready', checks: r.checks, ...(r.details !== undefined && { details: r.details }) }, r.ready ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    c.header('content-type', metrics.registry.contentType);
    return c.body(await metrics.registry.metrics());
  });
  // The same document as `make openapi` writes, but for this instance: the
  // serving host first among the servers, and the bearer token required when set.
  let doc: object | undefined;
  app.get('/openapi.json', (c) => {
    doc ??= finishOpenApiDocument(app.getOpenAPI31Document(openApiInfo(options)), {
      defaultPort: options.defaultPort,
      auth: authToken === undefined ? 'optional' : 'required',
      relativeServerFirst: true,
    });
    return c.json(doc);
  });
  mountDocs(app, `${options.service} API`);
  return app;
}

function bearerAuth(token: string) {
  const expected = Buffer.from(`Bearer ${token}`);
  return async function requireBearer(c: { req: { path: string; header(n: string): string | undefined } }, next: () => Promise<void>) {
    if (isPublicPath(c.req.path)) return next();
    const got = Buffer.from(c.req.header('authorization') ?? '');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new AppError(ErrorCode.Unauthorized, 'missing or invalid bearer token');
    }
    return next();
  };
}
