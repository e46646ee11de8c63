// @rl/service-kit/core: the pure part of the kit, what a service's core may
// import. No HTTP framework, no NATS, no file system. Each name here is one
// another package's core imports; add a name when one needs it.

// Errors: stable codes and their wire body
export { AppError, ErrorCode, isErrorCode, toErrorBody, type ErrorBody } from './errors.ts';

// The scoring contract, and zod with `.openapi()` (no hono) for a core's own wire schemas
export { z } from './schemas/zod.ts';
export { MAX_ITEM_TIMEOUT_MS, ScoreItem, ScoreRequest } from './schemas/score.ts';
export { STORY_COMPONENTS } from './schemas/story-components.ts';

// Validation of untrusted input
export { formatPath, invalidParamsError, parseJsonText, validationError } from './validation.ts';
export { getOwn, setOwn } from './own-keys.ts';

// Python-compatible formatting (the scorers mirror verl's Python output)
export { parseJsonForPython, pyFloatRepr, pyStr, pyStringRepr } from './py-repr.ts';

// Concurrency, batching, retry
export type { RunQueue } from './concurrency/admission-queue.ts';
export { BoundedQueue } from './concurrency/bounded-queue.ts';
export { runPool } from './concurrency/run-pool.ts';
export { MicroBatcher } from './batching/micro-batcher.ts';
export { retry, sleepMs } from './retry/retry.ts';

// Seeded randomness
export { createRng, type Rng } from './random.ts';
export { mixSeed, rowSeed } from './seed-mix.ts';
