import type { Logger } from './logger.ts';

/** A step of graceful shutdown, run in registration order. */
export type StopStep = { name: string; run: () => Promise<void> };

/**
 * Runs `steps` once on SIGTERM or SIGINT (in order, each failure logged and
 * skipped), then exits. A second signal exits at once.
 */
export function onShutdown(logger: Logger, steps: StopStep[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const step of steps) {
      try {
        await step.run();
      } catch (err) {
        logger.error({ err, step: step.name }, 'shutdown step failed');
      }
    }
    logger.info({}, 'stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
