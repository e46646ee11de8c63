// Internals for benches and sibling packages' tests (`@rl/policy/internal`), the
// way nats.js keeps `internal_mod.ts` beside its curated `mod.ts`: not for services.
export { jit } from './model/backend.ts';
export { batchBucket, widthBucket } from './training/batch-layout.ts';
export { generateFlops, scoreFlops, trainFlops, type FlopShape } from './model/flops.ts';
export { TorchTrainer } from './torch/torch-trainer.ts';
export { readObjectDirect } from './weights/direct-read.ts';
