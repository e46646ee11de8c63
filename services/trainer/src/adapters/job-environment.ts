// What every job of this trainer instance shares: the NATS connection, the
// logger and the directory relative paths resolve against.
import { resolve } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@rl/service-kit';

/** Service-level settings every job shares. */
export interface JobEnvironment {
  nc: NatsConnection;
  natsUrl: string;
  logger: Logger;
  /** Directory relative `trainer.default_local_dir`s and data files resolve against. */
  baseDir: string;
  logLevel: string;
}

/** Where a job writes (checkpoints, metrics.jsonl, plots/). */
export const jobDir = (env: JobEnvironment, c: { trainer: { default_local_dir: string } }) => resolve(env.baseDir, c.trainer.default_local_dir);
