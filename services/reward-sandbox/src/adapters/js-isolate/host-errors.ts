// Formatting of errors that reach the host as copies rather than being printed by
// the in-isolate runtime: compile-time SyntaxErrors, failures of ES module linking
// or evaluation, and unhandled promise rejections (isolated-vm reports those when a
// call into the isolate ends). Output imitates what `node` prints to stderr.

import { inspect } from 'node:util';

/** Error thrown while linking an ES module, printed verbatim (e.g. ERR_MODULE_NOT_FOUND). */
export class ModuleLinkError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
    this.name = 'Error';
  }
}

// Compile errors that Node's module-syntax detection retries as ES modules.
const ESM_ONLY_SYNTAX = new Set(['Cannot use import statement outside a module', "Unexpected token 'export'", "Cannot use 'import.meta' outside a module"]);
const CJS_ONLY_FAILURES = new Set([
  "Identifier 'module' has already been declared",
  "Identifier 'exports' has already been declared",
  "Identifier 'require' has already been declared",
  "Identifier '__filename' has already been declared",
  "Identifier '__dirname' has already been declared",
  'await is only valid in async functions and the top level bodies of modules',
]);

interface CompileFailure {
  name: string;
  message: string;
  line: number | null;
  column: number | null;
}

/** Splits an isolated-vm compile error ("msg [file:line:col]") into its parts. */
export function parseCompileError(err: unknown): CompileFailure {
  const name = err instanceof Error ? err.name : 'SyntaxError';
  const raw = err instanceof Error ? err.message : String(err);
  const m = /^([\s\S]*) \[(.*):(\d+):(\d+)\]$/.exec(raw);
  if (m === null) return { name, message: raw, line: null, column: null };
  return { name, message: m[1] as string, line: Number(m[3]), column: Number(m[4]) };
}

/** 'esm' when the CommonJS compile error means ES module syntax, 'maybe' when Node would retry as ESM, else null. */
export function esmRetryKind(err: unknown): 'esm' | 'maybe' | null {
  const { name, message } = parseCompileError(err);
  if (name !== 'SyntaxError') return null;
  if (ESM_ONLY_SYNTAX.has(message)) return 'esm';
  if (CJS_ONLY_FAILURES.has(message)) return 'maybe';
  return null;
}

/** Formats a compile error like Node: "file:line", the source line, a caret, then "SyntaxError: msg". */
export function formatCompileError(err: unknown, filename: string, source: string, version: string): string {
  const { name, message, line, column } = parseCompileError(err);
  let header = '';
  if (line !== null && column !== null) {
    const text = source.split(/\r?\n/)[line - 1];
    if (text !== undefined) header = `${filename}:${line}\n${text}\n${' '.repeat(Math.max(0, column - 1))}^\n\n`;
  }
  return `${header}${name}: ${message}\n\nNode.js ${version}\n`;
}

/**
 * Formats an error copied out of the isolate: an unhandled rejection, or (`thrown`)
 * an exception thrown by an ES module body.
 */
export function formatHostError(err: unknown, filename: string, source: string, version: string, thrown = false): string {
  const footer = `\n\nNode.js ${version}\n`;
  if (err instanceof ModuleLinkError) return `Error [${err.code}]: ${err.message}${footer}`;
  if (err instanceof Error) {
    let stack = typeof err.stack === 'string' && err.stack !== '' ? err.stack : `${err.name}: ${err.message}`;
    // Frames after the isolate boundary belong to this service, not to the program.
    const cut = stack.indexOf('\n    at (<isolated-vm boundary>)');
    if (cut !== -1) stack = stack.slice(0, cut);
    return throwSiteHeader(stack, filename, source) + stack + footer;
  }
  if (thrown) {
    const shown = typeof err === 'string' ? err : inspect(err);
    return `\n${shown}\n(Use \`node --trace-uncaught ...\` to show where the exception was thrown)${footer}`;
  }
  const reason = typeof err === 'string' ? err : inspect(err);
  return (
    'node:internal/process/promises:394\n    triggerUncaughtException(err, true /* fromPromise */);\n    ^\n\n' +
    '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, ' +
    `or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "${reason}".] {\n` +
    "  code: 'ERR_UNHANDLED_REJECTION'\n}" +
    footer
  );
}

// Node prints "file:line", the source line and a caret above an uncaught error; the
// first stack frame in the program's file stands in for the throw site.
function throwSiteHeader(stack: string, filename: string, source: string): string {
  for (const line of stack.split('\n')) {
    if (!/^\s+at /.test(line) || !line.includes(`${filename}:`)) continue;
    const m = /:(\d+):(\d+)\)?$/.exec(line);
    if (m === null) continue;
    const lineNo = Number(m[1]);
    const text = source.split(/\r?\n/)[lineNo - 1];
    if (text === undefined) return '';
    return `${filename}:${lineNo}\n${text}\n${' '.repeat(Math.max(0, Number(m[2]) - 1))}^\n\n`;
  }
  return '';
}
