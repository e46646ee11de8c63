// TypeScript → JavaScript with Node's built-in type stripper (amaro/swc). Types are
// erased, never checked, exactly like `tsx` in SandboxFusion. 'strip' mode keeps
// every position (so stack traces point at the user's lines); 'transform' is the
// fallback for enums, namespaces, parameter properties and `import x = require()`.

import { stripTypeScriptTypes } from 'node:module';

const CACHE_LIMIT = 64;
// canRunInIsolate and run() both need the JavaScript for the same request; a small
// cache keeps the second conversion free.
const cache = new Map<string, string>();

/** Converts TypeScript source to JavaScript; throws Node's SyntaxError (code ERR_INVALID_TYPESCRIPT_SYNTAX) on invalid code. */
export function toJavaScript(code: string): string {
  const hit = cache.get(code);
  if (hit !== undefined) return hit;
  let js: string;
  try {
    js = stripTypeScriptTypes(code, { mode: 'strip' });
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw err;
    js = stripTypeScriptTypes(code, { mode: 'transform', sourceMap: false });
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(code, js);
  return js;
}

/** Formats a type-stripping error the way `node file.ts` prints it (location header, message, version footer). */
export function formatTypeScriptError(err: unknown, filename: string, version: string): string {
  if (!(err instanceof Error)) return `${filename}\n${String(err)}\n\nNode.js ${version}\n`;
  const stack = typeof err.stack === 'string' ? err.stack : `${err.name}: ${err.message}`;
  // Node's stack starts with ":<line>\n<source>\n<caret>\n\n" (no file name); keep that
  // header and the message line, drop the host frames.
  const lines = stack.split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    if (/^\s+at /.test(line)) break;
    kept.push(line);
  }
  let text = kept.join('\n');
  if (text.startsWith(':')) text = filename + text;
  return `${text}\n\nNode.js ${version}\n`;
}
