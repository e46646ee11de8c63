// Parsing and scope resolution for the fast-path check (static-check.ts): which
// identifiers in a program refer to globals (or to one of its own declarations),
// so that `require`, `process` or `Buffer` count only where they really are the
// Node ones, never inside strings/comments or when the program declares its own.
//
// Scopes follow the language closely enough for that purpose and err on one side
// only: a name is taken as declared only where it certainly is (a sloppy-mode
// function declaration in a block is not hoisted out of it, `with` is ignored), so
// a doubt leaves a reference global and, at worst, sends a program to real Node.

import { type AnyNode, type Identifier, type Node, type Pattern, type Program, parse } from 'acorn';
import { type AncestorVisitors, ancestor } from 'acorn-walk';

/** One identifier used as a value (not a declaration, not a property name). */
export interface Reference {
  readonly node: Identifier;
  /** The nearest enclosing nodes (up to CONTEXT_DEPTH), outermost first, ending with the identifier's parent. */
  readonly ancestors: readonly AnyNode[];
  /** The scope node that declares the name; undefined for a global. */
  readonly scope: Node | undefined;
}

export interface ScopeInfo {
  readonly program: Program;
  readonly references: readonly Reference[];
  /** Scope node of each declared identifier (variables, functions, classes, parameters, imports). */
  readonly declaredIn: ReadonlyMap<Identifier, Node>;
  /** `import()` or `import.meta` occurs (they need a module loader). */
  readonly usesModuleLoader: boolean;
}

/** How many enclosing nodes a Reference keeps: enough for `globalThis.process.x(...)`. */
const CONTEXT_DEPTH = 4;

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const BLOCK_TYPES = new Set(['BlockStatement', 'Program', 'ForStatement', 'ForInStatement', 'ForOfStatement', 'SwitchStatement', 'StaticBlock']);

/**
 * Parses like Node runs a file: as a CommonJS script (top-level `return` allowed),
 * else as an ES module. When neither parses, the two error messages.
 */
export function parseProgram(js: string): Program | { errors: [string, string] } {
  const options = { ecmaVersion: 'latest', allowHashBang: true } as const;
  try {
    return parse(js, { ...options, sourceType: 'script', allowReturnOutsideFunction: true });
  } catch (asScript) {
    try {
      return parse(js, { ...options, sourceType: 'module' });
    } catch (asModule) {
      return { errors: [String((asScript as Error).message), String((asModule as Error).message)] };
    }
  }
}

/** The innermost of `ancestors` (which end with the declaring node itself, skipped) of one of `types`. */
function innermost(ancestors: readonly AnyNode[], types: ReadonlySet<string>): AnyNode {
  for (let i = ancestors.length - 2; i >= 0; i--) {
    const node = ancestors[i] as AnyNode;
    if (types.has(node.type)) return node;
  }
  return ancestors[0] as AnyNode;
}

const VAR_SCOPE_TYPES = new Set([...FUNCTION_TYPES, 'Program', 'StaticBlock']);

function bindingIdentifiers(pattern: Pattern | null | undefined, out: Identifier[] = []): Identifier[] {
  if (!pattern) return out;
  switch (pattern.type) {
    case 'Identifier':
      out.push(pattern);
      break;
    case 'ObjectPattern':
      for (const p of pattern.properties) bindingIdentifiers(p.type === 'RestElement' ? p.argument : p.value, out);
      break;
    case 'ArrayPattern':
      for (const e of pattern.elements) bindingIdentifiers(e, out);
      break;
    case 'RestElement':
      bindingIdentifiers(pattern.argument, out);
      break;
    case 'AssignmentPattern':
      bindingIdentifiers(pattern.left, out);
      break;
    default:
      break; // MemberExpression: an assignment target, declares nothing
  }
  return out;
}

/** Collects declarations per scope node, then resolves every value reference. */
export function analyzeScopes(program: Program): ScopeInfo {
  const declared = new Map<Node, Set<string>>();
  const declaredIn = new Map<Identifier, Node>();
  const declare = (scope: Node, ids: readonly Identifier[]): void => {
    let names = declared.get(scope);
    if (names === undefined) {
      names = new Set();
      declared.set(scope, names);
    }
    for (const id of ids) {
      names.add(id.name);
      declaredIn.set(id, scope);
    }
  };
  const declareFunction = (node: AnyNode & { params: Pattern[] }): void => {
    declare(
      node,
      node.params.flatMap((p) => bindingIdentifiers(p)),
    );
  };
  ancestor(program, {
    VariableDeclaration(node, _state, ancestors) {
      const scope = innermost(ancestors, node.kind === 'var' ? VAR_SCOPE_TYPES : BLOCK_TYPES);
      declare(
        scope,
        node.declarations.flatMap((d) => bindingIdentifiers(d.id)),
      );
    },
    FunctionDeclaration(node, _state, ancestors) {
      if (node.id) declare(innermost(ancestors, BLOCK_TYPES), [node.id]);
      declareFunction(node);
    },
    FunctionExpression(node) {
      if (node.id) declare(node, [node.id]);
      declareFunction(node);
    },
    ArrowFunctionExpression(node) {
      declareFunction(node);
    },
    ClassDeclaration(node, _state, ancestors) {
      if (node.id) declare(innermost(ancestors, BLOCK_TYPES), [node.id]);
    },
    ClassExpression(node) {
      if (node.id) declare(node, [node.id]);
    },
    CatchClause(node) {
      declare(node, bindingIdentifiers(node.param));
    },
    ImportDeclaration(node) {
      declare(
        program,
        node.specifiers.map((s) => s.local),
      );
    },
  });

  const references: Reference[] = [];
  let usesModuleLoader = false;
  // `end`: index just past the identifier's parent in `ancestors` (the walker's live array).
  const resolve = (id: Identifier, ancestors: readonly AnyNode[], end: number): void => {
    let scope: Node | undefined;
    for (let i = end - 1; i >= 0 && scope === undefined; i--) {
      if (declared.get(ancestors[i] as AnyNode)?.has(id.name)) scope = ancestors[i];
    }
    references.push({ node: id, ancestors: ancestors.slice(Math.max(0, end - CONTEXT_DEPTH), end), scope });
  };
  const onIdentifier = (node: AnyNode, _state: unknown, ancestors: AnyNode[]): void => {
    // Pattern identifiers are declarations unless they are assignment targets (`x = 1`).
    if (node.type === 'Identifier' && !declaredIn.has(node)) resolve(node, ancestors, ancestors.length - 1);
  };
  // acorn-walk reports identifiers in patterns under the pseudo-type VariablePattern.
  const visitors = {
    Identifier: onIdentifier,
    VariablePattern: onIdentifier,
    ExportNamedDeclaration(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      // `export { x }` uses local bindings that the walker does not visit.
      if (node.type !== 'ExportNamedDeclaration' || node.source) return;
      for (const s of node.specifiers) if (s.local.type === 'Identifier') resolve(s.local, [...ancestors, s], ancestors.length + 1);
    },
    ImportExpression() {
      usesModuleLoader = true;
    },
    MetaProperty(node: AnyNode) {
      if (node.type === 'MetaProperty' && node.meta.name === 'import') usesModuleLoader = true;
    },
  } as AncestorVisitors<unknown>;
  ancestor(program, visitors);
  return { program, references, declaredIn, usesModuleLoader };
}
