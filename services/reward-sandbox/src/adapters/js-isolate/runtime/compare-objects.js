// @ts-check
// In-isolate deep equality, the object part of Node's comparisons.js: own keys,
// cycles (memos), sparse arrays, sets and maps (with the loose-mode rules for
// primitives), and the two entry points isDeepEqual / isDeepStrictEqual.

import {
  innerDeepEqual, kIsArray, kIsMap, kIsSet, kLoose, kNoIterator, kStrict, ownEnumerableSymbols,
} from './compare.js';
import { hasOwn } from './inspect-types.js';

/** @typedef {import('./compare.js').Memos} Memos */
/** @typedef {import('./compare.js').PropertyKeys} PropertyKeys */

/**
 * @param {any} val1
 * @param {any} val2
 * @param {number} mode
 * @param {Memos | undefined} memos
 * @param {number} iterationType
 * @param {PropertyKeys} [keys2]
 */
export function keyCheck(val1, val2, mode, memos, iterationType, keys2) {
  const isArrayLikeObject = keys2 !== undefined;
  if (keys2 === undefined) keys2 = Object.keys(val2);
  /** @type {PropertyKeys | undefined} */
  let keys1;
  if (!isArrayLikeObject) {
    if (keys2.length !== (keys1 = Object.keys(val1)).length) return false;
    if (mode === kStrict) {
      keys1.push.apply(keys1, ownEnumerableSymbols(val1));
      keys2.push.apply(keys2, ownEnumerableSymbols(val2));
      if (keys1.length !== keys2.length) return false;
    }
  }
  if (keys2.length === 0 && (iterationType === kNoIterator || (iterationType === kIsArray && val2.length === 0) || val2.size === 0)) {
    return true;
  }
  return handleCycles(val1, val2, mode, keys1, keys2, memos, iterationType);
}

/**
 * @param {any} val1
 * @param {any} val2
 * @param {number} mode
 * @param {PropertyKeys | undefined} keys1
 * @param {PropertyKeys} keys2
 * @param {Memos | undefined} memos
 * @param {number} iterationType
 */
function handleCycles(val1, val2, mode, keys1, keys2, memos, iterationType) {
  if (memos === undefined) {
    memos = { set: undefined, a: val1, b: val2, c: undefined, d: undefined, deep: false };
    return objEquiv(val1, val2, mode, keys1, keys2, memos, iterationType);
  }
  if (memos.set === undefined) {
    if (memos.deep === false) {
      if (memos.a === val1) return memos.b === val2;
      if (memos.b === val2) return false;
      memos.c = val1;
      memos.d = val2;
      memos.deep = true;
      const result = objEquiv(val1, val2, mode, keys1, keys2, memos, iterationType);
      memos.deep = false;
      // objEquiv may have switched memos to a Set (TypeScript still sees the narrowed `undefined`).
      const grown = /** @type {Set<unknown> | undefined} */ (memos.set);
      if (grown !== undefined) { grown.delete(memos.c); grown.delete(memos.d); }
      return result;
    }
    memos.set = new Set([memos.a, memos.b, memos.c, memos.d]);
  }
  const set = memos.set;
  const originalSize = set.size;
  set.add(val1);
  set.add(val2);
  if (originalSize !== set.size - 2) return originalSize === set.size;
  const areEq = objEquiv(val1, val2, mode, keys1, keys2, memos, iterationType);
  set.delete(val1);
  set.delete(val2);
  return areEq;
}

/**
 * @param {any} a
 * @param {any} b
 * @param {number} mode
 * @param {Memos | undefined} memos
 * @param {number} i
 */
function sparseArrayEquiv(a, b, mode, memos, i) {
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (; i < keysB.length; i++) {
    const key = /** @type {string} */ (keysB[i]);
    if ((a[key] === undefined && !hasOwn.call(a, key)) || !innerDeepEqual(a[key], b[key], mode, memos)) return false;
  }
  return true;
}

/**
 * @param {any} a
 * @param {any} b
 * @param {number} mode
 * @param {PropertyKeys | undefined} keys1
 * @param {PropertyKeys} keys2
 * @param {Memos | undefined} memos
 * @param {number} iterationType
 */
function objEquiv(a, b, mode, keys1, keys2, memos, iterationType) {
  if (keys2.length > 0) {
    let i = 0;
    if (keys1 !== undefined) {
      for (; i < keys2.length; i++) {
        const key = /** @type {string | symbol} */ (keys2[i]);
        if (keys1[i] !== key) break;
        if (!innerDeepEqual(a[key], b[key], mode, memos)) return false;
      }
    }
    for (; i < keys2.length; i++) {
      const key = /** @type {string | symbol} */ (keys2[i]);
      const descriptor = Object.getOwnPropertyDescriptor(a, key);
      if (descriptor === undefined || descriptor.enumerable !== true) return false;
      const value = descriptor.writable !== undefined ? descriptor.value : a[key];
      if (!innerDeepEqual(value, b[key], mode, memos)) return false;
    }
  }
  if (iterationType === kIsArray) {
    for (let i = 0; i < a.length; i++) {
      if (b[i] === undefined) {
        if (!hasOwn.call(b, i)) return sparseArrayEquiv(a, b, mode, memos, i);
        if ((a[i] !== undefined || !hasOwn.call(a, i)) && (mode !== kLoose || a[i] !== null)) return false;
      } else if ((a[i] === undefined || !innerDeepEqual(a[i], b[i], mode, memos)) && (mode !== kLoose || b[i] !== null)) {
        return false;
      }
    }
  } else if (iterationType === kIsSet) {
    if (!setEquiv(a, b, mode, memos)) return false;
  } else if (iterationType === kIsMap) {
    if (!mapEquiv(a, b, mode, memos)) return false;
  }
  return true;
}

/** @param {any} prim */
function looseAlternative(prim) {
  switch (typeof prim) {
    case 'undefined': return null;
    case 'object': return undefined;
    case 'symbol': return false;
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: as in Node's comparisons.js, a numeric string is then checked as a number
    case 'string': prim = +prim;
    case 'number': if (prim !== prim) return false;
  }
  return true;
}

/**
 * @param {any} a
 * @param {any} b
 * @param {number} mode
 * @param {Memos | undefined} memo
 */
function setEquiv(a, b, mode, memo) {
  const pending = [];
  for (const val of b) {
    if (!a.has(val)) {
      if ((typeof val !== 'object' || val === null) && mode !== kLoose) return false;
      if ((typeof val !== 'object' || val === null) && looseAlternative(val) === false) return false;
      pending.push(val);
    }
  }
  if (pending.length === 0) return true;
  const candidates = [];
  for (const val1 of a) {
    if (!b.has(val1) || (mode === kLoose && typeof val1 !== 'object')) candidates.push(val1);
  }
  for (let i = 0; i < pending.length; i++) {
    let found = -1;
    for (let j = 0; j < candidates.length; j++) {
      if (innerDeepEqual(candidates[j], pending[i], mode, memo)) { found = j; break; }
    }
    if (found === -1) return false;
    candidates.splice(found, 1);
  }
  return true;
}

/**
 * @param {any} a
 * @param {any} b
 * @param {number} mode
 * @param {Memos | undefined} memo
 */
function mapEquiv(a, b, mode, memo) {
  const pending = [];
  for (const entry of b) {
    const key2 = entry[0];
    const item2 = entry[1];
    if (typeof key2 === 'object' && key2 !== null) {
      pending.push(entry);
    } else {
      const item1 = a.get(key2);
      if ((item1 === undefined && !a.has(key2)) || !innerDeepEqual(item1, item2, mode, memo)) {
        if (mode !== kLoose || looseAlternative(key2) === false) return false;
        pending.push(entry);
      }
    }
  }
  if (pending.length === 0) return true;
  const candidates = [];
  for (const entry of a) {
    const key1 = entry[0];
    if (typeof key1 === 'object' && key1 !== null ? !b.has(key1) : mode === kLoose) candidates.push(entry);
  }
  for (let i = 0; i < pending.length; i++) {
    let found = -1;
    for (let j = 0; j < candidates.length; j++) {
      if (innerDeepEqual(candidates[j][0], pending[i][0], mode, memo) &&
          innerDeepEqual(candidates[j][1], pending[i][1], mode, memo)) { found = j; break; }
    }
    if (found === -1) return false;
    candidates.splice(found, 1);
  }
  return true;
}

/**
 * @param {any} a
 * @param {any} b
 */
export function isDeepEqual(a, b) { return innerDeepEqual(a, b, kLoose, undefined); }
/**
 * @param {any} a
 * @param {any} b
 */
export function isDeepStrictEqual(a, b) { return innerDeepEqual(a, b, kStrict, undefined); }
