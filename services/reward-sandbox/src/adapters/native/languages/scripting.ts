// Interpreted languages: SandboxFusion writes the code to `tmpXXXXXXXX.<ext>`
// and runs the interpreter on it (`python`, `pytest`, `/bin/bash`,
// `php -f`, `ruby`, `perl`, `lua`, `Rscript`, `racket`). `sql` has no runner there (its
// language list names it, a request errors); here sqlite3 runs the file
// against an in-memory database.

import { ENOMEM, type LanguageContext, type LanguageSpec } from './types.ts';

/** An interpreter run on the file, capped by RLIMIT_AS alone. */
function interpreter(extension: string, tool: (c: LanguageContext) => string | undefined, args: string[], memoryMarkers: RegExp[]): LanguageSpec {
  return {
    extension,
    available: (t) => tool({ source: '', memoryLimitMb: 0, tools: t, inputs: [] }) !== undefined,
    run: (c) => ({ argv: [tool(c) ?? extension, ...args, c.source] }),
    addressSpaceMb: (m) => m,
    memoryMarkers: [...memoryMarkers, ENOMEM],
  };
}

const python: LanguageSpec = {
  extension: 'py',
  available: (t) => t.python !== undefined,
  // No -I (it drops the script dir from sys.path, so `files` could not be imported)
  // and no -S (site-packages such as numpy must import). The env is already clean.
  run: (c) => ({ argv: [c.tools.python ?? 'python3', c.source] }),
  addressSpaceMb: (m) => m,
  memoryMarkers: [/MemoryError/, ENOMEM],
};

export const SCRIPTING_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  python,
  pytest: {
    ...python,
    available: (t) => t.python !== undefined && t.pytest === true,
    run: (c) => ({ argv: [c.tools.python ?? 'python3', '-m', 'pytest', c.source] }),
  },
  bash: interpreter('sh', (c) => c.tools.bash, [], [/xmalloc: .*cannot allocate/i]),
  php: {
    // CLI php has no memory_limit; RLIMIT_AS stops it with "Out of memory".
    ...interpreter('php', (c) => c.tools.php, ['-f'], [/Allowed memory size of \d+ bytes exhausted/, /Out of memory \(allocated/]),
    // As SandboxFusion: leading whitespace dropped, the opening tag added when missing.
    prepareCode: (code) => (code.trimStart().startsWith('<?php') ? code.trimStart() : `<?php\n${code.trimStart()}`),
  },
  ruby: interpreter('rb', (c) => c.tools.ruby, [], [/failed to allocate memory \(NoMemoryError\)/]),
  perl: interpreter('pl', (c) => c.tools.perl, [], [/Out of memory!/]),
  lua: interpreter('lua', (c) => c.tools.lua, [], [/not enough memory/]),
  R: interpreter('R', (c) => c.tools.rscript, [], [/cannot allocate vector of size/]),
  sql: {
    extension: 'sql',
    available: (t) => t.sqlite3 !== undefined,
    // -bail: the first failing statement ends the run with a non-zero code, as a crash would.
    run: (c) => ({ argv: [c.tools.sqlite3 ?? 'sqlite3', '-bail', '-batch', ':memory:', `.read ${c.source}`] }),
    addressSpaceMb: (m) => m,
    memoryMarkers: [/out of memory/, ENOMEM],
  },
  // Racket CS reserves little up front; a failed allocation prints "out of memory".
  racket: interpreter('rkt', (c) => c.tools.racket, [], [/out of memory/]),
};
