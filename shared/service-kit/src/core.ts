// The pure part of the service kit (`@rl/service-kit/core`): what a service's
// core may import. No HTTP framework, no NATS, no file system: errors, seeded
// randomness, Python-compatible formatting, validation helpers, the wire
// schemas and the small concurrency, batching and retry primitives.
export * from './errors.ts';
export * from './random.ts';
export * from './seed-mix.ts';
export * from './py-repr.ts';
export * from './validation.ts';
export * from './own-keys.ts';
export * from './schemas/score.ts';
export * from './schemas/story-components.ts';
export * from './concurrency/admission-queue.ts';
export * from './concurrency/bounded-queue.ts';
export * from './concurrency/run-pool.ts';
export * from './batching/micro-batcher.ts';
export * from './retry/retry.ts';
