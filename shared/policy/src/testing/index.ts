// Test helpers for code that runs the embedded policy (`@rl/policy/testing`).
export * from './tiny-policy.ts';
export * from './live-buffers.ts';
export * from './tiny-hf-model.ts';
