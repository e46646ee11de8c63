// Where a job may read and write on the trainer's host. A job names files
// (data, weights, tokenizers) and directories (checkpoints, dumps); the trainer
// service confines them to roots its operator configured, so a client cannot
// make it read /etc/passwd or write checkpoints into /etc. Pure: the lexical
// check runs at submission; adapters/job-paths.ts repeats it on real paths
// (symlinks resolved) when the job opens them.
import { isAbsolute, resolve, sep } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit';
import type { ConfigProblem } from './format-issues.ts';
import type { TrainingJobConfig } from './load-job-config.ts';

/** What a path key is used for: reading data, reading a model, or writing the job's output. */
export type PathAccess = 'data' | 'model' | 'output';

/** The trainer service's roots, absolute. */
export interface PathRoots {
  /** Relative paths of a job resolve against this directory. */
  base: string;
  data: readonly string[];
  model: readonly string[];
  /** Checkpoints, metrics, plots and dumps go only under here (and may be read back: a later job's model.path). */
  output: string;
}

/** One path a job config names. */
export interface JobPath {
  /** The config key, e.g. `data.train_files[1]`. */
  key: string;
  /** Where the value sits in the parsed config. */
  at: readonly (string | number)[];
  value: string;
  access: PathAccess;
}

const isTokenizerFile = (t: string | null): t is string => t !== null && t !== 'char' && t !== 'byte';

function files(key: string, values: readonly string[], access: PathAccess): JobPath[] {
  return values.map((value, i) => ({ key: values.length === 1 ? key : `${key}[${i}]`, at: [...key.split('.'), i], value, access }));
}

function optional(key: string, value: string | null, access: PathAccess): JobPath[] {
  return value === null ? [] : [{ key, at: key.split('.'), value, access }];
}

const outputDir = (value: string): JobPath => ({ key: 'trainer.default_local_dir', at: ['trainer', 'default_local_dir'], value, access: 'output' });

/** Every file or directory path a job config names, with its key and use. */
export function jobPaths(c: TrainingJobConfig): JobPath[] {
  const data = [...files('data.train_files', c.data.train_files, 'data'), ...files('data.val_files', c.data.val_files, 'data')];
  if (c.kind === 'sft') {
    return [
      ...data,
      ...optional('model.partial_pretrain', c.model.partial_pretrain, 'model'),
      ...optional('model.tokenizer', isTokenizerFile(c.model.tokenizer) ? c.model.tokenizer : null, 'model'),
      outputDir(c.trainer.default_local_dir),
    ];
  }
  const m = c.actor_rollout_ref.model;
  return [
    ...data,
    ...optional('actor_rollout_ref.model.path', m.path, 'model'),
    ...optional('actor_rollout_ref.model.tokenizer', isTokenizerFile(m.tokenizer) ? m.tokenizer : null, 'model'),
    ...optional('critic.model.path', c.critic.model.path, 'model'),
    outputDir(c.trainer.default_local_dir),
    ...optional('trainer.validation_data_dir', c.trainer.validation_data_dir, 'output'),
    ...optional('trainer.rollout_data_dir', c.trainer.rollout_data_dir, 'output'),
  ];
}

/** A copy of `c` with each listed path replaced (the real paths a job opens). */
export function withPaths<C extends TrainingJobConfig>(c: C, paths: ReadonlyArray<{ at: readonly (string | number)[]; value: string }>): C {
  const copy = structuredClone(c);
  for (const { at, value } of paths) {
    let node = copy as unknown as Record<string | number, unknown>;
    for (const k of at.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
    node[at.at(-1)!] = value;
  }
  return copy;
}

/** The roots a use may reach: reads also reach the output root (a job starts from an earlier job's checkpoint). */
export function rootsFor(roots: PathRoots, access: PathAccess): readonly string[] {
  return access === 'output' ? [roots.output] : [...new Set([...roots[access], roots.output])];
}

/** `path` is `root` or inside it (both absolute and normalised). */
export const isWithin = (root: string, path: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

const ROOT_SETTING: Record<PathAccess, string> = { data: 'TRAINER_DATA_ROOTS', model: 'TRAINER_MODEL_ROOTS', output: 'TRAINER_OUTPUT_ROOT' };

/** Why `resolved` (absolute) may not be used for `access`, or null when it may. */
export function outsideRoots(roots: PathRoots, access: PathAccess, resolved: string): string | null {
  const allowed = rootsFor(roots, access);
  if (allowed.some((r) => isWithin(r, resolved))) return null;
  const what = access === 'output' ? 'the output root' : `the ${access} roots or the output root`;
  return `${resolved} is outside ${what} (${allowed.join(', ')}; the trainer's ${ROOT_SETTING[access]})`;
}

/** Problems of one path before touching the disk: `..` segments, and where it resolves. */
export function lexicalProblem(roots: PathRoots, p: JobPath): string | null {
  if (p.value.includes('\0')) return 'a path cannot contain a NUL byte';
  if (p.value.split(/[\\/]/).includes('..')) return `"..": paths may not climb out of a directory (got ${JSON.stringify(p.value)})`;
  return outsideRoots(roots, p.access, isAbsolute(p.value) ? resolve(p.value) : resolve(roots.base, p.value));
}

/** Every path problem of a job config, as config problems naming their keys. */
export function pathProblems(c: TrainingJobConfig, roots: PathRoots): ConfigProblem[] {
  return jobPaths(c).flatMap((p) => {
    const message = lexicalProblem(roots, p);
    return message === null ? [] : [{ path: p.key, message }];
  });
}

/** The 400 a job whose paths leave the roots gets (the shape of every job config error). */
export function pathError(problems: readonly ConfigProblem[]): AppError {
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`);
  return new AppError(ErrorCode.ValidationFailed, `invalid job config:\n${lines.join('\n')}`, { details: { problems } });
}

/** Throws the 400 when any path of `c` leaves the roots. */
export function assertJobPaths(c: TrainingJobConfig, roots: PathRoots): void {
  const problems = pathProblems(c, roots);
  if (problems.length > 0) throw pathError(problems);
}
