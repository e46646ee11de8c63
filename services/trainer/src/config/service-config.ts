// The trainer service's own environment (not a job's config, which the rest of
// this folder parses): read once in main.ts.
import { resolve } from 'node:path';
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';
import type { PathRoots } from './path-roots.ts';

const dirList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((d) => d.trim())
      .filter((d) => d !== ''),
  )
  .optional();

/** Environment of the trainer service. */
export const TrainerServiceConfig = BaseConfig.extend({
  /** HTTP port. @default 8105 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8105),
  /** Directory relative paths of a job (data, models, output) resolve against. @default the working directory */
  TRAINER_BASE_DIR: z.string().min(1).default(process.cwd()),
  /** Comma-separated directories jobs may read data files from (and the output root). @default TRAINER_BASE_DIR */
  TRAINER_DATA_ROOTS: dirList,
  /** Comma-separated directories jobs may read weights and tokenizers from (and the output root). @default TRAINER_BASE_DIR */
  TRAINER_MODEL_ROOTS: dirList,
  /** The one directory jobs write under (checkpoints, metrics, plots, dumps); created at start. @default TRAINER_BASE_DIR/.run */
  TRAINER_OUTPUT_ROOT: z.string().min(1).optional(),
  /**
   * The user job work runs as when the trainer starts as root: a user name or
   * `uid:gid`; `root` keeps root (not advised). Ignored when not started as root. @default nobody
   */
  TRAINER_RUN_AS: z
    .string()
    .regex(/^([a-z_][a-z0-9_-]*\$?|\d+:\d+)$/, 'expected a user name or uid:gid')
    .default('nobody'),
});
export type TrainerServiceConfig = z.infer<typeof TrainerServiceConfig>;

/** The roots as configured, absolute (before symlinks are resolved at start). */
export function configuredRoots(c: TrainerServiceConfig): PathRoots {
  const base = resolve(c.TRAINER_BASE_DIR);
  const dirs = (list: string[] | undefined) => (list === undefined || list.length === 0 ? [base] : list.map((d) => resolve(base, d)));
  return {
    base,
    data: dirs(c.TRAINER_DATA_ROOTS),
    model: dirs(c.TRAINER_MODEL_ROOTS),
    output: resolve(base, c.TRAINER_OUTPUT_ROOT ?? '.run'),
  };
}
