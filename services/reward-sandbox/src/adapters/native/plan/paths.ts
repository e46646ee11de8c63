// Where a run's files are inside the sandbox, and work-dir path hygiene. The
// caller validates request paths already; this is the second line of defence,
// because a path that escapes the work dir would let a request plant or read
// files elsewhere in the sandbox's view.

/** Work dir (cwd) inside the sandbox. */
export const WORK_DIR = '/tmp/work';
/**
 * Writable `/mnt`: SandboxFusion runs as root in a container, so a program may
 * write `/mnt/b` and `fetch_files` it. `/mnt` links to this dir of the run's
 * /tmp, so such files share /tmp's size and inode caps (the zygote makes it in
 * each run's fresh /tmp too).
 */
export const MNT_DIR = '/tmp/mnt';
/** Where the stdin file is placed (outside the program's writable dirs). */
export const STDIN_PATH = '/run/sandbox/stdin';

/** Normalises a work-dir-relative path (`a//b/./c` -> `a/b/c`); throws on absolute, `..`, NUL or empty. */
export function safeRelativePath(path: string): string {
  if (path.includes('\0')) throw new Error(`invalid path ${JSON.stringify(path)}: contains NUL`);
  if (path.startsWith('/')) throw new Error(`invalid path ${JSON.stringify(path)}: absolute paths are not allowed`);
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) throw new Error(`invalid path ${JSON.stringify(path)}: empty`);
  if (parts.includes('..')) throw new Error(`invalid path ${JSON.stringify(path)}: '..' is not allowed`);
  return parts.join('/');
}

/** The sandbox's writable areas: where a program can leave a file for fetch_files by absolute path (`/mnt` links into /tmp: MNT_DIR). */
export const WRITABLE_ROOTS = ['/tmp', '/dev/shm', '/mnt'] as const;

/**
 * A fetch_files entry: a work-dir-relative path (normalised as above) or, as
 * SandboxFusion allows, an absolute one. An absolute path is read inside the
 * sandbox, so it can only name the sandbox's own files; outside the writable
 * areas nothing the program made can exist, so it is dropped (null: reported
 * absent, like a missing file) rather than read from the toolchain binds.
 */
export function safeFetchPath(path: string): string | null {
  if (!path.startsWith('/')) return safeRelativePath(path);
  const abs = `/${safeRelativePath(path.slice(1))}`;
  return WRITABLE_ROOTS.some((r) => abs.startsWith(`${r}/`)) ? abs : null;
}

/** Quotes a string as one bash word (single quotes; embedded quotes spliced). */
export function shellQuote(word: string): string {
  if (word.includes('\0')) throw new Error('cannot quote a string containing NUL');
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
