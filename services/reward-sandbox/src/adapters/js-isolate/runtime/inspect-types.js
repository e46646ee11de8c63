// @ts-check
// In-isolate `util.inspect`, type detection: brand checks through intrinsic
// getters (no V8 internals are reachable from inside the isolate), constructor
// names and key listing, following Node's lib/internal/util/inspect.js.

import { inspect } from './inspect-value.js';
import { numberRe } from './inspect.js';

/** @typedef {import('./inspect.js').InspectContext} InspectContext */

/**
 * The getter of a built-in accessor property; it throws on receivers without the
 * matching internal slot, which is what the brand checks below rely on.
 * @param {object} proto
 * @param {PropertyKey} key
 * @returns {(this: unknown) => any}
 */
function intrinsicGetter(proto, key) {
  return /** @type {(this: unknown) => any} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, key)).get);
}
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
export const typedArrayTagGetter = intrinsicGetter(TypedArrayProto, Symbol.toStringTag);
export const mapSizeGetter = intrinsicGetter(Map.prototype, 'size');
export const setSizeGetter = intrinsicGetter(Set.prototype, 'size');
const abLengthGetter = intrinsicGetter(ArrayBuffer.prototype, 'byteLength');
const sabLengthGetter = typeof SharedArrayBuffer === 'function' ? intrinsicGetter(SharedArrayBuffer.prototype, 'byteLength') : null;
const regexpSourceGetter = intrinsicGetter(RegExp.prototype, 'source');
const dvLengthGetter = intrinsicGetter(DataView.prototype, 'byteLength');
export const AsyncFunctionProto = Object.getPrototypeOf(async function () {});
export const GeneratorFunctionProto = Object.getPrototypeOf(function* () {});
export const AsyncGeneratorFunctionProto = Object.getPrototypeOf(async function* () {});
export const objToString = Object.prototype.toString;
export const hasOwn = Object.prototype.hasOwnProperty;
export const propIsEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * @param {Function} getter
 * @param {any} v
 */
function brand(getter, v) { try { getter.call(v); return true; } catch { return false; } }
/** @param {any} v */
export function isTypedArray(v) { return typedArrayTagGetter.call(v) !== undefined; }
/** @param {any} v */
export function isMap(v) { return brand(mapSizeGetter, v); }
/** @param {any} v */
export function isSet(v) { return brand(setSizeGetter, v); }
/** @param {any} v */
export function isDate(v) { try { Date.prototype.getTime.call(v); return true; } catch { return false; } }
/** @param {any} v */
export function isRegExp(v) { return brand(regexpSourceGetter, v) && v !== RegExp.prototype; }
/** @param {any} v */
export function isArrayBuffer(v) { return brand(abLengthGetter, v); }
/** @param {any} v */
export function isSharedArrayBuffer(v) { return sabLengthGetter !== null && brand(sabLengthGetter, v); }
/** @param {any} v */
export function isDataView(v) { return brand(dvLengthGetter, v); }
/** @param {any} v */
export function isPromise(v) { return v instanceof Promise; }
/** @param {any} v */
export function isWeakMap(v) { try { WeakMap.prototype.has.call(v, {}); return true; } catch { return false; } }
/** @param {any} v */
export function isWeakSet(v) { try { WeakSet.prototype.has.call(v, {}); return true; } catch { return false; } }
// Error.isError (newer V8) is not in TypeScript's lib yet.
const ErrorWithIsError = /** @type {ErrorConstructor & { isError?: (v: unknown) => boolean }} */ (Error);
/** @param {any} v */
export function isError(v) {
  if (typeof ErrorWithIsError.isError === 'function') return ErrorWithIsError.isError(v) || v instanceof Error;
  return v instanceof Error || objToString.call(v) === '[object Error]';
}
/** @param {any} v */
export function isArgumentsObject(v) { return objToString.call(v) === '[object Arguments]'; }
/** @param {any} v */
export function boxedKind(v) {
  try { Number.prototype.valueOf.call(v); return 'Number'; } catch {}
  try { String.prototype.valueOf.call(v); return 'String'; } catch {}
  try { Boolean.prototype.valueOf.call(v); return 'Boolean'; } catch {}
  try { BigInt.prototype.valueOf.call(v); return 'BigInt'; } catch {}
  try { Symbol.prototype.valueOf.call(v); return 'Symbol'; } catch {}
  return null;
}

const wellKnownPrototypes = new Map([
  [Array.prototype, ['Array', Array]], [ArrayBuffer.prototype, ['ArrayBuffer', ArrayBuffer]],
  [Function.prototype, ['Function', Function]], [Map.prototype, ['Map', Map]],
  [Set.prototype, ['Set', Set]], [Object.prototype, ['Object', Object]],
  [TypedArrayProto, ['TypedArray', Object.getPrototypeOf(Uint8Array)]], [RegExp.prototype, ['RegExp', RegExp]],
  [Date.prototype, ['Date', Date]], [DataView.prototype, ['DataView', DataView]],
  [Error.prototype, ['Error', Error]], [RangeError.prototype, ['RangeError', RangeError]],
  [TypeError.prototype, ['TypeError', TypeError]], [Boolean.prototype, ['Boolean', Boolean]],
  [Number.prototype, ['Number', Number]], [String.prototype, ['String', String]],
  [Promise.prototype, ['Promise', Promise]], [WeakMap.prototype, ['WeakMap', WeakMap]],
  [WeakSet.prototype, ['WeakSet', WeakSet]],
]);

/** @param {any} v */
function internalGetConstructorName(v) {
  const s = objToString.call(v);
  return s.slice(8, -1);
}

/**
 * @param {any} obj
 * @param {InspectContext} ctx
 * @param {number} recurseTimes
 * @returns {string | null}
 */
export function getConstructorName(obj, ctx, recurseTimes) {
  let firstProto;
  const tmp = obj;
  while (obj) {
    const known = wellKnownPrototypes.get(obj);
    if (known !== undefined) {
      let ok = false;
      try { ok = tmp instanceof known[1]; } catch {}
      if (ok) return known[0];
    }
    const descriptor = Object.getOwnPropertyDescriptor(obj, 'constructor');
    if (descriptor !== undefined && typeof descriptor.value === 'function' && descriptor.value.name !== '') {
      let inst = false;
      try { inst = tmp instanceof descriptor.value; } catch {}
      if (inst) return String(descriptor.value.name);
    }
    obj = Object.getPrototypeOf(obj);
    if (firstProto === undefined) firstProto = obj;
  }
  if (firstProto === null) return null;
  const res = internalGetConstructorName(tmp);
  if (recurseTimes > ctx.depth && ctx.depth !== null) return res + ' <Complex prototype>';
  const protoConstr = getConstructorName(firstProto, ctx, recurseTimes + 1);
  if (protoConstr === null) {
    return res + ' <' + inspect(firstProto, Object.assign({}, ctx, { customInspect: false, depth: -1 })) + '>';
  }
  return res + ' <' + protoConstr + '>';
}

/**
 * @param {string | null} constructor
 * @param {string} tag
 * @param {string} fallback
 * @param {string | number} [size]
 */
export function getPrefix(constructor, tag, fallback, size) {
  if (size === undefined) size = '';
  if (constructor === null) {
    if (tag !== '' && fallback !== tag) return '[' + fallback + size + ': null prototype] [' + tag + '] ';
    return '[' + fallback + size + ': null prototype] ';
  }
  let result = constructor + size + ' ';
  if (tag !== '') {
    const position = constructor.indexOf(tag);
    if (position === -1) {
      result += '[' + tag + '] ';
    } else {
      const endPos = position + tag.length;
      const next = constructor.charAt(endPos);
      if (endPos !== constructor.length && next === next.toLowerCase()) {
        result += '[' + tag + '] ';
      }
    }
  }
  return result;
}

/**
 * @param {any} value
 * @param {boolean} showHidden
 */
export function getKeys(value, showHidden) {
  /** @type {Array<string | symbol>} */
  let keys;
  const symbols = Object.getOwnPropertySymbols(value);
  if (showHidden) {
    keys = Object.getOwnPropertyNames(value);
    if (symbols.length !== 0) keys.push.apply(keys, symbols);
  } else {
    try { keys = Object.keys(value); } catch { keys = Object.getOwnPropertyNames(value); }
    for (let i = 0; i < symbols.length; i++) {
      const symbol = /** @type {symbol} */ (symbols[i]);
      if (propIsEnumerable.call(value, symbol)) keys.push(symbol);
    }
  }
  return keys;
}

/** @param {any} k */
export function isIndexKey(k) { return typeof k === 'string' && numberRe.test(k) && Number(k) < 4294967295; }

/**
 * @param {any} value
 * @param {boolean} showHidden
 */
export function getOwnNonIndexProperties(value, showHidden) {
  const keys = showHidden ? Reflect.ownKeys(value) : getKeys(value, false);
  const out = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (!isIndexKey(k)) out.push(k);
  }
  return out;
}

/**
 * @param {any} value
 * @param {string | null} constructor
 * @param {string} tag
 */
export function getCtxStyle(value, constructor, tag) {
  let fallback = '';
  if (constructor === null) {
    fallback = internalGetConstructorName(value);
    if (fallback === tag) fallback = 'Object';
  }
  return getPrefix(constructor, tag, fallback);
}

