// @ts-check
// In-isolate `util.inspect`, type detection: brand checks through intrinsic
// getters (no V8 internals are reachable from inside the isolate), constructor
// names and key listing, following Node's lib/internal/util/inspect.js.

import { inspect, numberRe } from './inspect.js';

const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
export const typedArrayTagGetter = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
export const mapSizeGetter = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
export const setSizeGetter = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get;
const abLengthGetter = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
const sabLengthGetter = typeof SharedArrayBuffer === 'function' ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength').get : null;
const regexpSourceGetter = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get;
const dvLengthGetter = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get;
export const AsyncFunctionProto = Object.getPrototypeOf(async function () {});
export const GeneratorFunctionProto = Object.getPrototypeOf(function* () {});
export const AsyncGeneratorFunctionProto = Object.getPrototypeOf(async function* () {});
export const objToString = Object.prototype.toString;
export const hasOwn = Object.prototype.hasOwnProperty;
export const propIsEnumerable = Object.prototype.propertyIsEnumerable;

function brand(getter, v) { try { getter.call(v); return true; } catch { return false; } }
export function isTypedArray(v) { return typedArrayTagGetter.call(v) !== undefined; }
export function isMap(v) { return brand(mapSizeGetter, v); }
export function isSet(v) { return brand(setSizeGetter, v); }
export function isDate(v) { try { Date.prototype.getTime.call(v); return true; } catch { return false; } }
export function isRegExp(v) { return brand(regexpSourceGetter, v) && v !== RegExp.prototype; }
export function isArrayBuffer(v) { return brand(abLengthGetter, v); }
export function isSharedArrayBuffer(v) { return sabLengthGetter !== null && brand(sabLengthGetter, v); }
export function isDataView(v) { return brand(dvLengthGetter, v); }
export function isPromise(v) { return v instanceof Promise; }
export function isWeakMap(v) { try { WeakMap.prototype.has.call(v, {}); return true; } catch { return false; } }
export function isWeakSet(v) { try { WeakSet.prototype.has.call(v, {}); return true; } catch { return false; } }
export function isError(v) {
  if (typeof Error.isError === 'function') return Error.isError(v) || v instanceof Error;
  return v instanceof Error || objToString.call(v) === '[object Error]';
}
export function isArgumentsObject(v) { return objToString.call(v) === '[object Arguments]'; }
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

function internalGetConstructorName(v) {
  const s = objToString.call(v);
  return s.slice(8, -1);
}

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
      if (endPos !== constructor.length && constructor[endPos] === constructor[endPos].toLowerCase()) {
        result += '[' + tag + '] ';
      }
    }
  }
  return result;
}

export function getKeys(value, showHidden) {
  let keys;
  const symbols = Object.getOwnPropertySymbols(value);
  if (showHidden) {
    keys = Object.getOwnPropertyNames(value);
    if (symbols.length !== 0) keys.push.apply(keys, symbols);
  } else {
    try { keys = Object.keys(value); } catch { keys = Object.getOwnPropertyNames(value); }
    for (let i = 0; i < symbols.length; i++) {
      if (propIsEnumerable.call(value, symbols[i])) keys.push(symbols[i]);
    }
  }
  return keys;
}

export function isIndexKey(k) { return typeof k === 'string' && numberRe.test(k) && Number(k) < 4294967295; }

export function getOwnNonIndexProperties(value, showHidden) {
  const keys = showHidden ? Reflect.ownKeys(value) : getKeys(value, false);
  const out = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (!isIndexKey(k)) out.push(k);
  }
  return out;
}

export function getCtxStyle(value, constructor, tag) {
  let fallback = '';
  if (constructor === null) {
    fallback = internalGetConstructorName(value);
    if (fallback === tag) fallback = 'Object';
  }
  return getPrefix(constructor, tag, fallback);
}

