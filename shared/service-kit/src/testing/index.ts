// Test kit of the service chassis (`@rl/service-kit/testing`): what every
// service's unit tests share. Test-only helpers of one service stay beside its
// tests as `*.test-support.ts`; a package's helpers for other packages' tests
// are its `testing` export (this one, `@rl/policy/testing`, `@rl/datasets/testing`).
export { createTestApp } from './test-app.ts';
export { expectAppError, expectAppErrorAsync } from './app-error.ts';
