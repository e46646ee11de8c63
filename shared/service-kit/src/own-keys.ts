// Objects built from keys a client, a dataset or a model chose. A plain `{}`
// reads `constructor` and `__proto__` through its prototype, and assigning
// `obj['__proto__'] = x` replaces that prototype (or, walked one level further,
// writes into Object.prototype for the whole process). These helpers read and
// write own properties only, so any key is just data.

/** Key path segments that name JavaScript's prototype machinery; never valid in a config path. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `key` is `__proto__`, `constructor` or `prototype`. */
export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(key);
}

/** `obj[key]` when `key` is the object's own property, else undefined (never an inherited member). */
export function getOwn<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets `obj[key] = value` as an own data property, even for `__proto__` (which plain assignment would treat as the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * The dotted path of a key anywhere in `value` that {@link isPrototypeKey}
 * rejects, or undefined. Walks with an explicit stack, so hostile nesting depth
 * cannot overflow the call stack.
 */
export function findPrototypeKey(value: unknown): string | undefined {
  const stack: Array<{ node: unknown; path: string }> = [{ node: value, path: '' }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, path } = top;
    if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push({ node: child, path: `${path}[${i}]` }));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        if (isPrototypeKey(key)) return childPath;
        stack.push({ node: child, path: childPath });
      }
    }
  }
  return undefined;
}
