// A job's paths on disk: the roots made real at start (created, symlinks
// resolved), and each path of a job checked again when the job opens it, with
// symlinks resolved, so a link inside a root cannot lead out of it. The job
// then opens the real paths it was given here. Output directories are created
// here and handed to the run-as user; nothing else is ever chowned.
import { chownSync, lstatSync, mkdirSync, opendirSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit';
import { jobPaths, lexicalProblem, outsideRoots, pathError, withPaths, type JobPath, type PathRoots } from '../config/path-roots.ts';
import type { TrainingJobConfig } from '../config/index.ts';
import { asRoot, dropTo, type RunAs } from './run-as.ts';

const realOrSelf = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * Creates the output root, resolves every root's symlinks, drops to `who` and
 * checks that it can still reach the output root (a start-up error otherwise).
 */
export function setUpRoots(configured: PathRoots, who: RunAs | null): PathRoots {
  mkdirSync(configured.output, { recursive: true });
  const roots: PathRoots = {
    base: configured.base,
    data: configured.data.map(realOrSelf),
    model: configured.model.map(realOrSelf),
    output: realpathSync(configured.output),
  };
  if (who === null) return roots;
  dropTo(who);
  try {
    opendirSync(roots.output).closeSync();
  } catch (err) {
    throw new AppError(
      ErrorCode.InvalidConfig,
      `TRAINER_OUTPUT_ROOT ${roots.output}: the run-as user ${who.user} (uid ${who.uid}) cannot open it (${(err as NodeJS.ErrnoException).code}); make it and its parents searchable by that user, or set TRAINER_RUN_AS`,
    );
  }
  return roots;
}

const fail = (key: string, message: string) => pathError([{ path: key, message }]);

function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}

/** A file or directory the job reads: its real path, inside the roots. */
function realInput(roots: PathRoots, p: JobPath, path: string): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    const code = errnoOf(err);
    throw new AppError(ErrorCode.BadRequest, `${p.key}: ${path}: ${code === 'ENOENT' ? 'no such file or directory' : `cannot be opened (${code})`}`, {
      details: { field: p.key },
    });
  }
  const outside = outsideRoots(roots, p.access, real);
  if (outside !== null) throw fail(p.key, `${path} leads out of its roots through a symbolic link: ${outside}`);
  return real;
}

/** A job directory owned by the run-as user before this change of ownership rules: one the trainer itself wrote. */
const looksLikeJobDir = (dir: string) =>
  ['metrics.jsonl', 'latest_checkpointed_iteration.txt', 'worker-spec.json'].some((f) => lstatSync(join(dir, f), { throwIfNoEntry: false }) !== undefined);

function chownTree(dir: string, who: RunAs): void {
  chownSync(dir, who.uid, who.gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) chownTree(path, who);
    else if (!e.isSymbolicLink()) chownSync(path, who.uid, who.gid);
  }
}

/**
 * An output directory: its existing part resolved (symlinks), the rest created
 * inside the output root and given to `who`. An existing directory the user
 * cannot write is handed over only when it is an earlier job's directory.
 */
function realOutput(roots: PathRoots, p: JobPath, path: string, who: RunAs | null): string {
  const missing: string[] = [];
  let existing = path;
  let start: string;
  try {
    while (lstatSync(existing, { throwIfNoEntry: false }) === undefined) {
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
    start = realpathSync(existing);
  } catch (err) {
    throw new AppError(ErrorCode.BadRequest, `${p.key}: ${path}: cannot be reached (${errnoOf(err)})`, { details: { field: p.key } });
  }
  const real = join(start, ...missing);
  const outside = outsideRoots(roots, 'output', real);
  if (outside !== null) throw fail(p.key, `${path} leads out of the output root through a symbolic link: ${outside}`);
  asRoot(who, () => {
    let dir = start;
    for (const name of missing) {
      dir = join(dir, name);
      mkdirSync(dir);
      if (who !== null) chownSync(dir, who.uid, who.gid);
    }
    const s = lstatSync(real);
    if (!s.isDirectory()) throw fail(p.key, `${real} exists and is not a directory`);
    if (who !== null && s.uid !== who.uid) {
      if (!looksLikeJobDir(real)) throw fail(p.key, `${real} exists and belongs to uid ${s.uid}, not the run-as user ${who.user}; name a new directory`);
      chownTree(real, who);
    }
  });
  return real;
}

/**
 * The config a job runs with: every path checked against the roots, resolved
 * to its real location, output directories created. Errors name the key and
 * never show a file's contents.
 */
export function openJobPaths<C extends TrainingJobConfig>(c: C, roots: PathRoots, who: RunAs | null): C {
  const real = jobPaths(c).map((p) => {
    const problem = lexicalProblem(roots, p);
    if (problem !== null) throw fail(p.key, problem);
    const path = isAbsolute(p.value) ? resolve(p.value) : resolve(roots.base, p.value);
    return { at: p.at, value: p.access === 'output' ? realOutput(roots, p, path, who) : realInput(roots, p, path) };
  });
  return withPaths(c, real);
}
