// What every job of this trainer instance shares: the NATS connection, the
// logger, the roots its paths must stay in and the user job work runs as.
import { resolve } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@rl/service-kit';
import type { PathRoots } from '../config/path-roots.ts';
import type { RunAs } from './run-as.ts';

/** Service-level settings every job shares. */
export interface JobEnvironment {
  nc: NatsConnection;
  natsUrl: string;
  logger: Logger;
  /** Directory relative `trainer.default_local_dir`s and data files resolve against (`roots.base`). */
  baseDir: string;
  roots: PathRoots;
  /** The user policy workers run as; null when the trainer is not root. */
  runAs: RunAs | null;
  logLevel: string;
}

/** Where a job writes (checkpoints, metrics.jsonl, plots/). */
export const jobDir = (env: JobEnvironment, c: { trainer: { default_local_dir: string } }) => resolve(env.baseDir, c.trainer.default_local_dir);
