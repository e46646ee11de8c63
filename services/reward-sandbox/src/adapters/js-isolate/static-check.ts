// Decides, by static inspection only, whether a program can run on the isolate fast
// path. The answer must be conservative: "false" merely costs a slower native run,
// while a wrong "true" would fail a program that real Node runs fine. So anything
// we cannot positively match (dynamic require, unknown members of `process` or of a
// module binding, Node/Web globals the isolate lacks) means "false".
//
// The program is parsed (acorn) and its scopes resolved (js-scope.ts): only
// identifiers that really are the global `require`, `process`, `Buffer`... count,
// not text in strings or comments, nor the program's own variables of that name.

import { compileFunction } from 'node:vm';
import type { AnyNode, Identifier, Node, ObjectPattern, Program } from 'acorn';
import type { RunSpec } from '../../core/runner.ts';
import { type Reference, analyzeScopes, parseProgram } from './js-scope.ts';
import { CONSOLE_MEMBERS, PROCESS_MEMBERS, isolateModule, type ModuleShape } from './modules.ts';
import { toJavaScript } from './typescript.ts';

// Node and Web globals that a bare V8 context lacks and the runtime does not define.
const MISSING_GLOBALS = new Set([
  'Buffer',
  'TextEncoder',
  'TextDecoder',
  'URL',
  'URLSearchParams',
  'fetch',
  'structuredClone',
  'AbortController',
  'AbortSignal',
  'Blob',
  'File',
  'FormData',
  'Headers',
  'Request',
  'Response',
  'crypto',
  'atob',
  'btoa',
  'Worker',
  'SharedWorker',
  'MessageChannel',
  'MessagePort',
  'MessageEvent',
  'BroadcastChannel',
  'EventTarget',
  'Event',
  'CustomEvent',
  'WebSocket',
  'navigator',
  'localStorage',
  'sessionStorage',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'CompressionStream',
  'DecompressionStream',
  'DOMException',
  'PerformanceObserver',
  // Deleted by the runtime: its memory would escape the isolate's limit (runtime/entry.js).
  'WebAssembly',
  'eval',
  'gc',
  'Deno',
  'Bun',
  '__non_webpack_require__',
]);

/** Globals whose use is limited to listed members (`bare`: the object itself may also be passed around). */
const MEMBER_ONLY: ReadonlyMap<string, ModuleShape> = new Map([
  ['process', { members: PROCESS_MEMBERS, bare: false }],
  ['console', { members: CONSOLE_MEMBERS, bare: true }],
  ['performance', { members: ['now', 'timeOrigin'], bare: false }],
  ['module', { members: ['exports', 'id', 'filename', 'loaded', 'path', 'paths', 'children'], bare: true }],
]);
const GLOBAL_OBJECTS = new Set(['globalThis', 'global']);

/** A variable holding a builtin module (`const fs = require('fs')`, `import * as fs from 'fs'`). */
interface Binding {
  readonly scope: Node;
  readonly name: string;
  readonly shape: ModuleShape;
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
  const program = parseProgram(js);
  if ('errors' in program) return isolateReportsSyntaxError(js, program.errors);
  const { references, declaredIn, usesModuleLoader } = analyzeScopes(program);
  const bindings: Binding[] = [];
  // `import()` and `import.meta` need a module loader the isolate does not have.
  if (usesModuleLoader || !checkModuleDeclarations(program, bindings)) return false;
  const globals = references.filter((r) => r.scope === undefined);
  for (const r of globals) {
    if (r.node.name === 'require' && !checkRequire(r, declaredIn, bindings)) return false;
  }
  for (const r of globals) if (!checkGlobal(r.node.name, r.node, r.ancestors)) return false;
  for (const r of references) {
    const binding = bindings.find((b) => b.scope === r.scope && b.name === r.node.name);
    if (binding !== undefined && !allowedUse(r.node, parentOf(r), binding.shape)) return false;
  }
  return true;
}

/** Static imports of builtins only, of listed members (namespace and default imports are recorded in `bindings`); no re-exports. */
function checkModuleDeclarations(program: Program, bindings: Binding[]): boolean {
  for (const node of program.body) {
    if (node.type === 'ExportAllDeclaration' || (node.type === 'ExportNamedDeclaration' && node.source)) return false;
    if (node.type !== 'ImportDeclaration') continue;
    const shape = isolateModule(String(node.source.value));
    if (shape === undefined) return false;
    for (const s of node.specifiers) {
      const imported = s.type !== 'ImportSpecifier' ? 'default' : s.imported.type === 'Identifier' ? s.imported.name : String(s.imported.value);
      if (imported === 'default' || s.type === 'ImportNamespaceSpecifier') bindings.push({ scope: program, name: s.local.name, shape });
      else if (!shape.members.includes(imported)) return false;
    }
  }
  return true;
}

function parentOf(r: Reference): AnyNode | undefined {
  return r.ancestors[r.ancestors.length - 1];
}

/** The member named by `node` as the object of `parent` (`x.name`, `x?.name`, `x['name']`); null when computed at run time. */
function memberName(node: AnyNode, parent: AnyNode | undefined): string | null | undefined {
  if (parent?.type !== 'MemberExpression' || parent.object !== node) return undefined;
  if (!parent.computed) return parent.property.type === 'Identifier' ? parent.property.name : null;
  return parent.property.type === 'Literal' && typeof parent.property.value === 'string' ? parent.property.value : null;
}

/** Whether a use of a value with the given shape (module binding or member-only global) is supported. */
function allowedUse(node: AnyNode, parent: AnyNode | undefined, shape: ModuleShape): boolean {
  const member = memberName(node, parent);
  if (member === null) return false;
  if (member !== undefined) return shape.members.includes(member);
  return shape.bare;
}

/** `const { a, b: c = 1 } = <value>`: every key must be a listed member. */
function checkDestructured(pattern: ObjectPattern, shape: ModuleShape): boolean {
  return pattern.properties.every((p) => {
    if (p.type === 'RestElement' || p.computed) return false;
    const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : undefined;
    const value = p.value.type === 'AssignmentPattern' ? p.value.left : p.value;
    return key !== undefined && shape.members.includes(key) && value.type === 'Identifier';
  });
}

/** A use of a global the program does not declare itself; `ancestors` ends with the parent of `node`. */
function checkGlobal(name: string, node: AnyNode, ancestors: readonly AnyNode[]): boolean {
  if (MISSING_GLOBALS.has(name)) return false;
  const parent = ancestors[ancestors.length - 1];
  const isTypeof = parent?.type === 'UnaryExpression' && parent.operator === 'typeof';
  if (GLOBAL_OBJECTS.has(name)) {
    if (isTypeof) return true;
    // `globalThis.process` is `process`; anything the check cannot follow is refused.
    const member = memberName(node, parent);
    return typeof member === 'string' && checkGlobal(member, parent as AnyNode, ancestors.slice(0, -1));
  }
  const shape = MEMBER_ONLY.get(name);
  if (shape === undefined) return true;
  if (name === 'process' && isTypeof) return true;
  if (name === 'process' && parent?.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'ObjectPattern') {
    return checkDestructured(parent.id, shape);
  }
  return allowedUse(node, parent, shape);
}

/**
 * `require` (the CommonJS one): `require.main`, or a call with one literal builtin
 * specifier whose value is used by member, bound to a variable (recorded in
 * `bindings`), destructured, or dropped (`require('x');`).
 */
function checkRequire(r: Reference, declaredIn: ReadonlyMap<Identifier, Node>, bindings: Binding[]): boolean {
  const parent = parentOf(r);
  if (parent?.type === 'MemberExpression') return memberName(r.node, parent) === 'main';
  if (parent?.type !== 'CallExpression' || parent.callee !== r.node || parent.arguments.length !== 1) return false;
  const arg = parent.arguments[0];
  if (arg?.type !== 'Literal' || typeof arg.value !== 'string') return false;
  const shape = isolateModule(arg.value);
  if (shape === undefined) return false;
  const use = r.ancestors[r.ancestors.length - 2];
  if (use?.type === 'ExpressionStatement') return true;
  if (use?.type === 'VariableDeclarator' && use.init === parent) {
    if (use.id.type === 'ObjectPattern') return checkDestructured(use.id, shape);
    const scope = use.id.type === 'Identifier' ? declaredIn.get(use.id) : undefined;
    if (use.id.type !== 'Identifier' || scope === undefined) return false;
    bindings.push({ scope, name: use.id.name, shape });
    return true;
  }
  const member = memberName(parent, use);
  return typeof member === 'string' && shape.members.includes(member);
}

// V8's messages for ES module syntax in a script, on which Node retries as a module.
const ESM_SYNTAX = /import statement outside a module|Unexpected token 'export'|'import\.meta' outside a module|await is only valid/;

/**
 * For a program acorn cannot parse (`errors`: as a script, as a module). Such a
 * program runs nothing: Node prints a SyntaxError, and so does the isolate, as it
 * did before this check had a parser. Kept from then too: an unterminated string,
 * comment, template or regex goes to real Node (the isolate's caret line and
 * header differ from Node's there). Real Node also decides when V8 compiles the
 * code after all (acorn lags behind V8) or may read it as an ES module.
 */
function isolateReportsSyntaxError(js: string, errors: readonly string[]): boolean {
  if (errors.some((m) => m.startsWith('Unterminated'))) return false;
  try {
    compileFunction(js.startsWith('#!') ? `//${js.slice(2)}` : js, ['exports', 'require', 'module', '__filename', '__dirname']);
    return false;
  } catch (err) {
    return err instanceof SyntaxError && !ESM_SYNTAX.test(err.message);
  }
}
