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
          include: ['shared/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'],
          environment: 'node',
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
