// Decides, by static inspection only, whether a program can run on the isolate fast
// path. The answer must be conservative: "false" merely costs a slower native run,
// while a wrong "true" would fail a program that real Node runs fine. So anything
// we cannot positively match (dynamic require, unknown members of `process` or of a
// module binding, Node/Web globals the isolate lacks) means "false".

import type { RunSpec } from '../../core/runner.ts';
import { CONSOLE_MEMBERS, PROCESS_MEMBERS, isolateModule, type ModuleShape } from './modules.ts';
import { toJavaScript } from './typescript.ts';

// Node and Web globals that a bare V8 context lacks and the runtime does not define.
const MISSING_GLOBALS = new Set([
  'Buffer', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'fetch', 'structuredClone',
  'AbortController', 'AbortSignal', 'Blob', 'File', 'FormData', 'Headers', 'Request', 'Response',
  'crypto', 'atob', 'btoa', 'Worker', 'SharedWorker', 'MessageChannel', 'MessagePort', 'MessageEvent',
  'BroadcastChannel', 'EventTarget', 'Event', 'CustomEvent', 'WebSocket', 'navigator', 'localStorage',
  'sessionStorage', 'ReadableStream', 'WritableStream', 'TransformStream', 'CompressionStream',
  'DecompressionStream', 'DOMException', 'PerformanceObserver', 'eval', 'gc', 'Deno', 'Bun',
  '__non_webpack_require__',
]);

const MODULE_OBJECT_MEMBERS = new Set(['exports', 'id', 'filename', 'loaded', 'path', 'paths', 'children']);
const PERFORMANCE_MEMBERS = new Set(['now', 'timeOrigin']);
const PROCESS_SET = new Set(PROCESS_MEMBERS);
const CONSOLE_SET = new Set(CONSOLE_MEMBERS);

const REGEX_PRECEDERS = new Set('(,=:[!&|?{};+-*%<>~^'.split(''));
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await', 'instanceof']);
const IDENT = '[A-Za-z_$][\\w$]*';

/** Source with comments and literal contents blanked (same length), plus string literal values by opening-quote index. */
interface Masked {
  code: string;
  strings: Map<number, string>;
}

/** True when the run can use the isolate: nodejs/typescript, no files, and only shimmed Node APIs (static inspection). */
export function canRunInIsolate(spec: RunSpec): boolean {
  if (spec.language !== 'nodejs' && spec.language !== 'typescript') return false;
  if (Object.keys(spec.files).length > 0 || spec.fetchFiles.length > 0) return false;
  let js = spec.code;
  if (spec.language === 'typescript') {
    try {
      js = toJavaScript(spec.code);
    } catch {
      // Let the native toolchain report (or accept) code the stripper rejects.
      return false;
    }
  }
  return usesOnlyIsolateApis(js);
}

/** The JavaScript-level part of canRunInIsolate, exported for tests. */
export function usesOnlyIsolateApis(js: string): boolean {
  let masked: Masked;
  try {
    masked = mask(js.startsWith('#!') ? `//${js.slice(2)}` : js);
  } catch {
    return false;
  }
  const { code } = masked;
  const declarations = new Set<number>();
  const bindings: Array<{ name: string; shape: ModuleShape }> = [];

  if (!checkRequires(masked, declarations, bindings)) return false;
  if (!checkImports(masked, declarations, bindings)) return false;
  if (/(^|[^.\w$])export\s*(\*|\{[^}]*\})\s*from\b/.test(code)) return false;

  for (const { name, shape } of bindings) {
    if (!checkReferences(code, name, declarations, new Set(shape.members), shape.bare)) return false;
  }
  if (!checkProcess(code, declarations)) return false;
  if (!checkMemberOnly(code, 'console', CONSOLE_SET, true)) return false;
  if (!checkMemberOnly(code, 'performance', PERFORMANCE_MEMBERS, false)) return false;
  if (!checkMemberOnly(code, 'module', MODULE_OBJECT_MEMBERS, true)) return false;

  for (const m of code.matchAll(/[A-Za-z_$][\w$]*/g)) {
    if (MISSING_GLOBALS.has(m[0]) && !isPropertyName(code, m.index)) return false;
  }
  return true;
}

function checkRequires(masked: Masked, declarations: Set<number>, bindings: Array<{ name: string; shape: ModuleShape }>): boolean {
  const { code, strings } = masked;
  for (const m of code.matchAll(/\brequire\b/g)) {
    const at = m.index;
    if (isPropertyName(code, at) || /[\w$]/.test(code[at - 1] ?? '')) continue;
    const after = code.slice(at + 7);
    if (/^\s*\.\s*main\b/.test(after)) continue;
    const call = /^\s*\(\s*(['"])/.exec(after);
    if (call === null) return false;
    const quoteAt = at + 7 + call[0].length - 1;
    const specifier = strings.get(quoteAt);
    if (specifier === undefined) return false;
    const close = /^\s*\)/.exec(code.slice(quoteAt + specifier.length + 2));
    if (close === null) return false;
    const shape = isolateModule(specifier);
    if (shape === undefined) return false;
    const end = quoteAt + specifier.length + 2 + close[0].length;
    if (!classifyUse(code, at, end, shape, declarations, bindings)) return false;
  }
  return true;
}

// How the value of `require('x')` (spanning [start, end)) is used.
function classifyUse(
  code: string,
  start: number,
  end: number,
  shape: ModuleShape,
  declarations: Set<number>,
  bindings: Array<{ name: string; shape: ModuleShape }>,
): boolean {
  const before = code.slice(Math.max(0, start - 2000), start);
  const after = code.slice(end);
  const member = new RegExp(`^\\s*\\.\\s*(${IDENT})`).exec(after);
  if (member !== null) return shape.members.includes(member[1] as string);
  const simple = new RegExp(`(?:const|let|var)\\s+(${IDENT})\\s*=\\s*$`).exec(before);
  if (simple !== null) {
    const name = simple[1] as string;
    declarations.add(start - before.length + simple.index + simple[0].indexOf(name, simple[0].search(/\s/)));
    bindings.push({ name, shape });
    return true;
  }
  const destructured = /(?:const|let|var)\s*\{([^{}]*)\}\s*=\s*$/.exec(before);
  if (destructured !== null) {
    const offset = start - before.length + destructured.index + destructured[0].indexOf('{') + 1;
    return checkDestructured(destructured[1] as string, offset, shape, declarations);
  }
  // A bare `require('x');` statement, loaded for its side effects.
  return /(^|[;{}\n])\s*$/.test(before) && /^\s*(;|\n|$)/.test(after);
}

function checkDestructured(list: string, offset: number, shape: ModuleShape, declarations: Set<number>): boolean {
  let pos = 0;
  for (const rawPart of list.split(',')) {
    const part = rawPart.trim();
    const partAt = offset + pos + rawPart.indexOf(part);
    pos += rawPart.length + 1;
    if (part === '') continue;
    const m = new RegExp(`^(${IDENT})\\s*(?::\\s*(${IDENT}))?\\s*(?:=.*)?$`, 's').exec(part);
    if (m === null) return false;
    if (!shape.members.includes(m[1] as string)) return false;
    const local = m[2] ?? m[1];
    declarations.add(partAt + part.lastIndexOf(local as string));
  }
  return true;
}

function checkImports(masked: Masked, declarations: Set<number>, bindings: Array<{ name: string; shape: ModuleShape }>): boolean {
  const { code, strings } = masked;
  for (const m of code.matchAll(/\bimport\b/g)) {
    const at = m.index;
    if (isPropertyName(code, at) || /[\w$]/.test(code[at - 1] ?? '')) continue;
    const after = code.slice(at + 6);
    if (/^\s*[(.]/.test(after)) return false; // import(), import.meta
    const sideEffect = /^\s*(['"])/.exec(after);
    let clause = '';
    let quoteAt: number;
    if (sideEffect !== null) {
      quoteAt = at + 6 + sideEffect[0].length - 1;
    } else {
      const from = /^([\s\S]*?)\bfrom\s*(['"])/.exec(after);
      if (from === null) return false;
      clause = from[1] as string;
      quoteAt = at + 6 + from[0].length - 1;
    }
    const specifier = strings.get(quoteAt);
    if (specifier === undefined) return false;
    const shape = isolateModule(specifier);
    if (shape === undefined) return false;
    if (!checkImportClause(clause, at + 6, shape, declarations, bindings)) return false;
  }
  return true;
}

function checkImportClause(
  clause: string,
  clauseAt: number,
  shape: ModuleShape,
  declarations: Set<number>,
  bindings: Array<{ name: string; shape: ModuleShape }>,
): boolean {
  let rest = clause;
  let restAt = clauseAt;
  const def = new RegExp(`^(\\s*)(${IDENT})\\s*(,|$)`).exec(rest);
  if (def !== null) {
    const name = def[2] as string;
    declarations.add(restAt + (def[1] as string).length);
    bindings.push({ name, shape });
    restAt += def[0].length;
    rest = rest.slice(def[0].length);
  }
  if (rest.trim() === '') return true;
  const ns = new RegExp(`^\\s*\\*\\s*as\\s+(${IDENT})\\s*$`).exec(rest);
  if (ns !== null) {
    const name = ns[1] as string;
    declarations.add(restAt + ns[0].lastIndexOf(name));
    bindings.push({ name, shape });
    return true;
  }
  const named = /^\s*\{([^}]*)\}\s*$/.exec(rest);
  if (named === null) return false;
  const listAt = restAt + rest.indexOf('{') + 1;
  let pos = 0;
  for (const rawPart of (named[1] as string).split(',')) {
    const part = rawPart.trim();
    const partAt = listAt + pos + rawPart.indexOf(part);
    pos += rawPart.length + 1;
    if (part === '') continue;
    const m = new RegExp(`^(${IDENT})(?:\\s+as\\s+(${IDENT}))?$`).exec(part);
    if (m === null) return false;
    if (m[1] !== 'default' && !shape.members.includes(m[1] as string)) return false;
    const local = (m[2] ?? m[1]) as string;
    declarations.add(partAt + part.lastIndexOf(local));
    if (m[1] === 'default') bindings.push({ name: local, shape });
  }
  return true;
}

// Every reference to `name` must be a member access to an allowed member (or a bare
// use when allowed); declarations recorded earlier are skipped.
function checkReferences(code: string, name: string, declarations: Set<number>, members: Set<string>, bare: boolean): boolean {
  const re = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, 'g');
  for (const m of code.matchAll(re)) {
    if (declarations.has(m.index) || isPropertyName(code, m.index)) continue;
    const after = code.slice(m.index + name.length);
    const member = new RegExp(`^\\s*(\\?\\.|\\.)\\s*(${IDENT})`).exec(after);
    if (member !== null) {
      if (!members.has(member[2] as string)) return false;
      continue;
    }
    if (!bare) return false;
  }
  return true;
}

function checkProcess(code: string, declarations: Set<number>): boolean {
  for (const m of code.matchAll(/(?<![\w$])process(?![\w$])/g)) {
    const at = m.index;
    if (declarations.has(at)) continue;
    const before = code.slice(Math.max(0, at - 200), at);
    if (isPropertyName(code, at) && !/\b(globalThis|global)\s*\.\s*$/.test(before)) continue;
    const after = code.slice(at + 7);
    const member = new RegExp(`^\\s*(\\?\\.|\\.)\\s*(${IDENT})`).exec(after);
    if (member !== null) {
      if (!PROCESS_SET.has(member[2] as string)) return false;
      continue;
    }
    if (/\btypeof\s+$/.test(before)) continue;
    const destructured = /(?:const|let|var)\s*\{([^{}]*)\}\s*=\s*$/.exec(before);
    if (destructured !== null) {
      const offset = at - before.length + destructured.index + destructured[0].indexOf('{') + 1;
      if (!checkDestructured(destructured[1] as string, offset, { members: PROCESS_MEMBERS, bare: false }, declarations)) return false;
      continue;
    }
    return false;
  }
  return true;
}

function checkMemberOnly(code: string, name: string, members: Set<string>, bare: boolean): boolean {
  return checkReferences(code, name, new Set(), members, bare);
}

// True when the identifier at `index` is a property name (`x.name`, `x?.name`), not a reference.
function isPropertyName(code: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && /\s/.test(code[i] as string)) i--;
  return code[i] === '.' && code[i - 1] !== '.';
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Blanks comments and the contents of string, template and regex literals so that
 * identifier scans only see code. Template `${}` expressions stay code.
 */
function mask(src: string): Masked {
  const out = src.split('');
  const strings = new Map<number, string>();
  const braceStack: number[] = []; // for each open `${`, the brace depth at which it closes
  let depth = 0;
  let lastSignificant = ''; // last non-space code character, for regex detection
  let lastWord = '';
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  const n = src.length;
  let i = 0;
  const readTemplate = (from: number): number => {
    // `from` is just after the backtick or the closing `}` of an expression.
    let j = from;
    while (j < n) {
      const ch = src[j];
      if (ch === '\\') { j += 2; continue; }
      if (ch === '`') { blank(from, j); return j + 1; }
      if (ch === '$' && src[j + 1] === '{') {
        blank(from, j);
        braceStack.push(depth);
        depth++;
        return j + 2;
      }
      j++;
    }
    throw new Error('unterminated template');
  };
  while (i < n) {
    const ch = src[i] as string;
    const next = src[i + 1];
    if (ch === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end === -1) throw new Error('unterminated comment');
      blank(i, end + 2);
      i = end + 2;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      let value = '';
      while (j < n && src[j] !== ch) {
        if (src[j] === '\\') { value += src.slice(j, j + 2); j += 2; continue; }
        if (src[j] === '\n') throw new Error('unterminated string');
        value += src[j];
        j++;
      }
      if (j >= n) throw new Error('unterminated string');
      strings.set(i, value);
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = ch;
      lastWord = '';
      continue;
    }
    if (ch === '`') {
      i = readTemplate(i + 1);
      lastSignificant = '`';
      lastWord = '';
      continue;
    }
    if (ch === '/' && (lastSignificant === '' || REGEX_PRECEDERS.has(lastSignificant) || REGEX_KEYWORDS.has(lastWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < n) {
        const c = src[j];
        if (c === '\\') { j += 2; continue; }
        if (c === '\n') throw new Error('unterminated regex');
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) break;
        j++;
      }
      blank(i + 1, j);
      i = j + 1;
      while (i < n && /[a-z]/i.test(src[i] as string)) i++;
      lastSignificant = '/';
      lastWord = '';
      continue;
    }
    if (ch === '{') depth++;
    if (ch === '}') {
      depth--;
      if (braceStack.length > 0 && braceStack[braceStack.length - 1] === depth) {
        braceStack.pop();
        i = readTemplate(i + 1);
        lastSignificant = '`';
        lastWord = '';
        continue;
      }
    }
    if (/[\w$]/.test(ch)) {
      let j = i;
      while (j < n && /[\w$]/.test(src[j] as string)) j++;
      lastWord = src.slice(i, j);
      lastSignificant = 'a';
      i = j;
      continue;
    }
    if (!/\s/.test(ch)) {
      lastSignificant = ch;
      lastWord = '';
    }
    i++;
  }
  return { code: out.join(''), strings };
}
