// What every job of this trainer instance shares: the NATS connection, the
// logger, the directory relative paths resolve against and the user policy
// workers run as.
import { resolve } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@rl/service-kit';
import type { RunAs } from './run-as.ts';

/** Service-level settings every job shares. */
export interface JobEnvironment {
  nc: NatsConnection;
  natsUrl: string;
  logger: Logger;
  /** Directory relative `trainer.default_local_dir`s and data files resolve against (the roots' base). */
  baseDir: string;
  /** The user policy workers run as; null when the trainer is not root. */
  runAs: RunAs | null;
  logLevel: string;
}

/** Where a job writes (checkpoints, metrics.jsonl, plots/). */
export const jobDir = (env: JobEnvironment, c: { trainer: { default_local_dir: string } }) => resolve(env.baseDir, c.trainer.default_local_dir);
