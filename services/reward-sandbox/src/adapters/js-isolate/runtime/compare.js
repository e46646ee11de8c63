// @ts-check
// In-isolate deep equality for `assert.deepEqual` / `deepStrictEqual` and
// `util.isDeepStrictEqual`: a port of Node 24's lib/internal/util/comparisons.js
// (MIT, Node.js contributors) minus partial mode. MultiPL-E style benchmarks (the
// bulk of JS/TS reward traffic) end with `assert.deepEqual(...)`, so the loose and
// strict rules must match Node's exactly.

import { keyCheck } from './compare-objects.js';
import {
  boxedKind, hasOwn, isArrayBuffer, isDate, isError, isIndexKey, isMap, isPromise, isRegExp, isSet,
  isSharedArrayBuffer, isWeakMap, isWeakSet, objToString, propIsEnumerable, typedArrayTagGetter,
} from './inspect-types.js';

export const kLoose = 0, kStrict = 2;
export const kNoIterator = 0, kIsArray = 1, kIsSet = 2, kIsMap = 3;
const wellKnownConstructors = new Set([
  Array, ArrayBuffer, BigInt, BigInt64Array, BigUint64Array, Boolean, DataView, Date, Error,
  EvalError, Float32Array, Float64Array, Function, Int16Array, Int32Array, Int8Array, Map, Number,
  Object, Promise, RangeError, ReferenceError, RegExp, Set, String, Symbol, SyntaxError, TypeError,
  URIError, Uint16Array, Uint32Array, Uint8Array, Uint8ClampedArray, WeakMap, WeakSet,
]);
/**
 * Cycle bookkeeping of one comparison (Node's `memos`): the first nested pair is
 * kept in a/b/c/d, a Set takes over when objects nest deeper.
 * @typedef {{ set: Set<unknown> | undefined, a: unknown, b: unknown, c: unknown, d: unknown, deep: boolean }} Memos
 */
/** @typedef {Array<string | symbol>} PropertyKeys */

/**
 * @param {any} v
 * @returns {boolean} (not a type guard: callers keep treating the view as `any`)
 */
function isArrayBufferView(v) { return ArrayBuffer.isView(v); }
/**
 * @param {any} o
 * @param {any} k
 */
function hasEnumerable(o, k) { return propIsEnumerable.call(o, k); }
/** @param {any} o */
export function ownEnumerableSymbols(o) {
  return Object.getOwnPropertySymbols(o).filter(function (k) { return propIsEnumerable.call(o, k); });
}
/**
 * @param {any} o
 * @param {boolean} skipSymbols
 */
function nonIndexKeys(o, skipSymbols) {
  /** @type {PropertyKeys} */
  const out = [];
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) if (!isIndexKey(/** @type {string} */ (keys[i]))) out.push(/** @type {string} */ (keys[i]));
  if (!skipSymbols) out.push.apply(out, ownEnumerableSymbols(o));
  return out;
}
/**
 * @param {any} a
 * @param {any} b
 */
function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
/** @param {any} v */
function viewBytes(v) { return new Uint8Array(v.buffer, v.byteOffset, v.byteLength); }

/**
 * @param {any} val1
 * @param {any} val2
 */
function isEqualBoxedPrimitive(val1, val2) {
  const k1 = boxedKind(val1);
  if (k1 !== boxedKind(val2)) return false;
  if (k1 === 'Number') return Object.is(Number.prototype.valueOf.call(val1), Number.prototype.valueOf.call(val2));
  if (k1 === 'String') return String.prototype.valueOf.call(val1) === String.prototype.valueOf.call(val2);
  if (k1 === 'Boolean') return Boolean.prototype.valueOf.call(val1) === Boolean.prototype.valueOf.call(val2);
  if (k1 === 'BigInt') return BigInt.prototype.valueOf.call(val1) === BigInt.prototype.valueOf.call(val2);
  return Symbol.prototype.valueOf.call(val1) === Symbol.prototype.valueOf.call(val2);
}

/**
 * @param {any} val1
 * @param {any} val2
 * @param {any} prop
 * @param {number} mode
 * @param {Memos | undefined} memos
 */
function isEnumerableOrIdentical(val1, val2, prop, mode, memos) {
  return hasEnumerable(val2, prop) || innerDeepEqual(val1[prop], val2[prop], mode, memos);
}

/**
 * @param {any} val1
 * @param {any} val2
 * @param {number} mode
 * @param {Memos | undefined} memos
 */
export function innerDeepEqual(val1, val2, mode, memos) {
  if (val1 === val2) return val1 !== 0 || Object.is(val1, val2) || mode === kLoose;
  if (mode !== kLoose) {
    if (typeof val1 === 'number') return val1 !== val1 && val2 !== val2;
    if (typeof val2 !== 'object' || typeof val1 !== 'object' || val1 === null || val2 === null) return false;
  } else {
    if (val1 === null || typeof val1 !== 'object') {
      return (val2 === null || typeof val2 !== 'object') && (val1 == val2 || (val1 !== val1 && val2 !== val2));
    }
    if (val2 === null || typeof val2 !== 'object') return false;
  }
  return objectComparisonStart(val1, val2, mode, memos);
}

/**
 * @param {any} val1
 * @param {any} val2
 */
function hasUnequalTag(val1, val2) { return val1[Symbol.toStringTag] !== val2[Symbol.toStringTag]; }
/**
 * @param {any} val1Tag
 * @param {any} val1
 * @param {any} val2
 */
function slowHasUnequalTag(val1Tag, val1, val2) {
  if (val1[Symbol.toStringTag] !== undefined && val2[Symbol.toStringTag] !== undefined) {
    return val1[Symbol.toStringTag] !== val2[Symbol.toStringTag];
  }
  return val1Tag !== objToString.call(val2);
}

/**
 * @param {any} val1
 * @param {any} val2
 * @param {number} mode
 * @param {Memos | undefined} memos
 */
function objectComparisonStart(val1, val2, mode, memos) {
  if (mode === kStrict) {
    if (wellKnownConstructors.has(val1.constructor) || (val1.constructor !== undefined && !hasOwn.call(val1, 'constructor'))) {
      if (val1.constructor !== val2.constructor) return false;
    } else if (Object.getPrototypeOf(val1) !== Object.getPrototypeOf(val2)) {
      return false;
    }
  }
  if (Array.isArray(val1)) {
    if (!Array.isArray(val2) || val1.length !== val2.length || hasUnequalTag(val1, val2)) return false;
    const keys2 = nonIndexKeys(val2, mode === kLoose);
    if (keys2.length !== nonIndexKeys(val1, mode === kLoose).length) return false;
    return keyCheck(val1, val2, mode, memos, kIsArray, keys2);
  }
  let val1Tag;
  if (val1[Symbol.toStringTag] === undefined && (val1Tag = objToString.call(val1)) === '[object Object]') {
    if (slowHasUnequalTag(val1Tag, val1, val2)) return false;
    return keyCheck(val1, val2, mode, memos, kNoIterator);
  } else if (isSet(val1)) {
    if (!isSet(val2) || val1.size !== val2.size || hasUnequalTag(val1, val2)) return false;
    return keyCheck(val1, val2, mode, memos, kIsSet);
  } else if (isMap(val1)) {
    if (!isMap(val2) || val1.size !== val2.size || hasUnequalTag(val1, val2)) return false;
    return keyCheck(val1, val2, mode, memos, kIsMap);
  } else if (isArrayBufferView(val1)) {
    if (!isArrayBufferView(val2)) return false;
    if (typedArrayTagGetter.call(val1) !== typedArrayTagGetter.call(val2)) return false;
    if (mode === kLoose && (val1 instanceof Float32Array || val1 instanceof Float64Array)) {
      if (val1.length !== val2.length) return false;
      for (let i = 0; i < val1.length; i++) if (val1[i] !== val2[i]) return false;
    } else if (val1.byteLength !== val2.byteLength || !bytesEqual(viewBytes(val1), viewBytes(val2))) {
      return false;
    }
    const keys2 = nonIndexKeys(val2, mode === kLoose);
    if (keys2.length !== nonIndexKeys(val1, mode === kLoose).length) return false;
    return keyCheck(val1, val2, mode, memos, kNoIterator, keys2);
  } else if (isDate(val1)) {
    if (!isDate(val2) || hasUnequalTag(val1, val2)) return false;
    const t1 = Date.prototype.getTime.call(val1);
    const t2 = Date.prototype.getTime.call(val2);
    if (t1 !== t2 && (t1 === t1 || t2 === t2)) return false;
  } else if (isRegExp(val1)) {
    if (!isRegExp(val2) || val1.source !== val2.source || val1.flags !== val2.flags ||
        val1.lastIndex !== val2.lastIndex || hasUnequalTag(val1, val2)) return false;
  } else if (isArrayBuffer(val1) || isSharedArrayBuffer(val1)) {
    if (!(isArrayBuffer(val2) || isSharedArrayBuffer(val2)) || hasUnequalTag(val1, val2)) return false;
    if (!bytesEqual(new Uint8Array(val1), new Uint8Array(val2))) return false;
  } else if (slowHasUnequalTag(val1Tag === undefined ? objToString.call(val1) : val1Tag, val1, val2) ||
      Array.isArray(val2) || isArrayBufferView(val2) || isSet(val2) || isMap(val2) || isDate(val2) ||
      isRegExp(val2) || isArrayBuffer(val2) || isSharedArrayBuffer(val2)) {
    return false;
  } else if (isError(val1)) {
    if (!isError(val2) || !isEnumerableOrIdentical(val1, val2, 'message', mode, memos) ||
        !isEnumerableOrIdentical(val1, val2, 'name', mode, memos) ||
        !isEnumerableOrIdentical(val1, val2, 'cause', mode, memos) ||
        !isEnumerableOrIdentical(val1, val2, 'errors', mode, memos)) return false;
    if (hasOwn.call(val2, 'cause') !== hasOwn.call(val1, 'cause')) return false;
  } else if (boxedKind(val1) !== null) {
    if (!isEqualBoxedPrimitive(val1, val2)) return false;
  } else if (boxedKind(val2) !== null || isError(val2) || isWeakMap(val1) || isWeakSet(val1) || isPromise(val1)) {
    return false;
  }
  return keyCheck(val1, val2, mode, memos, kNoIterator);
}
