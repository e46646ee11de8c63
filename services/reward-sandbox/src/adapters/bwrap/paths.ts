// Work-dir path hygiene. The caller validates request paths already; this is the
// second line of defence, because a path that escapes the work dir would let a
// request plant or read files elsewhere in the sandbox's view.

/** Normalises a work-dir-relative path (`a//b/./c` -> `a/b/c`); throws on absolute, `..`, NUL or empty. */
export function safeRelativePath(path: string): string {
  if (path.includes('\0')) throw new Error(`invalid path ${JSON.stringify(path)}: contains NUL`);
  if (path.startsWith('/')) throw new Error(`invalid path ${JSON.stringify(path)}: absolute paths are not allowed`);
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) throw new Error(`invalid path ${JSON.stringify(path)}: empty`);
  if (parts.includes('..')) throw new Error(`invalid path ${JSON.stringify(path)}: '..' is not allowed`);
  return parts.join('/');
}

/** Quotes a string as one bash word (single quotes; embedded quotes spliced). */
export function shellQuote(word: string): string {
  if (word.includes('\0')) throw new Error('cannot quote a string containing NUL');
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
