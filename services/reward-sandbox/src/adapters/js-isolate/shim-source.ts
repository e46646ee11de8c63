// Assembles the in-isolate runtime (runtime/*.js) into the one script each isolate
// evaluates. The files are ES modules only for the type checker and editors: their
// `import` lines and `export` keywords are stripped here and the bodies are
// concatenated, in order, into a single strict IIFE, so every top-level name is
// one shared variable, exactly as if the runtime were written as one function body.
// Done once per process at module load (a few hundred microseconds).

import { readFileSync } from 'node:fs';

// Order matters only for top-level statements (classes, consts, objects built at
// load time): each file may use at load time only what earlier files define.
const RUNTIME_FILES = [
  'inspect.js',
  'inspect-value.js',
  'inspect-types.js',
  'inspect-parts.js',
  'inspect-lists.js',
  'inspect-layout.js',
  'format.js',
  'compare.js',
  'compare-objects.js',
  'assert-error.js',
  'assert.js',
  'io.js',
  'buffer.js',
  'events.js',
  'loop.js',
  'streams.js',
  'process.js',
  'builtins-fs.js',
  'builtins-readline.js',
  'builtins.js',
  'entry.js',
] as const;

// The runtime files keep imports and exports to this shape (shim-source.test.ts
// parses the result as a plain script, so anything else fails there).
const IMPORT_RE = /^import \{[^}]*\} from '\.\/[\w-]+\.js';\n/gm;
const EXPORT_RE = /^export (?=(?:async )?function|class|const|let)/gm;

/** One runtime file as a function-body fragment: imports dropped, `export` keywords removed. */
export function toFragment(moduleText: string): string {
  return moduleText.replace(IMPORT_RE, '').replace(EXPORT_RE, '');
}

function readRuntimeFile(name: string): string {
  return readFileSync(new URL(`./runtime/${name}`, import.meta.url), 'utf8');
}

/**
 * Complete in-isolate runtime: an IIFE that installs the globals and evaluates to
 * the control function `ctl` (defined in runtime/entry.js).
 */
export const SHIM_SOURCE = `(function () {\n'use strict';\n${RUNTIME_FILES.map((f) => toFragment(readRuntimeFile(f))).join('\n')}\nreturn ctl;\n})()`;
