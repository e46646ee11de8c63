import { defineConfig } from 'vitest/config';

// Two projects: unit tests sit beside their modules and need no network;
// integration tests under test/ start a real nats-server and real service processes.
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/{eval,tools}/**/*.test.ts'],
          environment: 'node',
          // Only a safety net against a hang: many unit tests start real processes
          // (sandboxes, isolate workers), which vitest's 5 s default can cut off on a
          // loaded 2-core host. What a test asserts about time it asserts itself.
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
