// @rl/service-kit: the chassis every service runs on. Each name here is one
// another package imports; the rest of src/ is the kit's own. A service's core
// takes the pure part from `@rl/service-kit/core` (core.ts), tests take
// `@rl/service-kit/testing`. Add a name here when another package needs it.

// Errors: stable codes, one table of statuses and retry defaults
export { AppError, CodedError, ErrorCode, fromErrorBody, isErrorCode, type ErrorBody } from './errors.ts';

// Configuration, logging, metrics, tracing
export { BaseConfig, loadConfig } from './config.ts';
export { createLogger, type Logger } from './logger.ts';
export { createMetrics, type ServiceMetrics } from './metrics.ts';
export { startTelemetry } from './telemetry/start.ts';
export { bindActiveContext, dataSourceAttributes, SpanAttr, withNatsClientSpan, withServerSpan, withSpan } from './telemetry/spans.ts';

// Hosting a service: HTTP app, NATS connection, /healthz, /readyz, /metrics, shutdown
export { connectNatsFromConfig, hostService } from './service-host.ts';
export { createApp, type AppEnv } from './http/app.ts';
export { problemDoc, problemResponse } from './http/problem.ts';
export { buildOpenApiDocument, packageDefaultPort, toYaml, type DocInfo } from './http/openapi-doc.ts';

// NATS: micro-service endpoints, JSON requests (chunked past max_payload), correlation headers
export { parsedEndpoint, startNatsService, type EndpointSpec, type NatsService } from './nats/service.ts';
export { requestJson } from './nats/request.ts';
export { TRACEPARENT_HEADER, type Correlation } from './nats/headers.ts';

// The scoring contract every reward service shares
export { ItemError, ItemScore, MAX_BATCH_ITEMS, ScoreItem, ScoreRequest, ScoreResponse, ScoreResult } from './schemas/score.ts';
export { STORY_COMPONENTS } from './schemas/story-components.ts';

// Reward edges: /v1/score, the OpenRLHF and slime routes and the NATS score endpoint over one core
export type { RewardCallContext } from './reward-edge/call-context.ts';
export type { BatchScorer } from './reward-edge/scorer.ts';
export type { ProtocolSlot } from './protocols/slot.ts';
export { scoreRoute } from './reward-edge/score-route.ts';
export { addScoreProtocolRoutes, addScoreRoute, type HttpScorer } from './reward-edge/score-routes.ts';
export { protocolRoutes } from './reward-edge/protocol-routes.ts';
export { scoreEndpoint } from './reward-edge/score-endpoint.ts';

// Validation of untrusted input
export { formatPath, parseJsonText, validationError } from './validation.ts';
export { findPrototypeKey, getOwn, isPrototypeKey, setOwn } from './own-keys.ts';

// Concurrency, batching, retry
export { AdmissionQueue } from './concurrency/admission-queue.ts';
export { BoundedQueue } from './concurrency/bounded-queue.ts';
export { runPool } from './concurrency/run-pool.ts';
export { DEFAULT_MAX_BATCH, MicroBatcher } from './batching/micro-batcher.ts';
export { retry } from './retry/retry.ts';

// Seeded randomness
export { createRng, type Rng } from './random.ts';
export { mixSeed } from './seed-mix.ts';
