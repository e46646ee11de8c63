// @ts-check
// In-isolate `util.inspect`, the object formatter: formatValue (custom inspect,
// circular references), formatRaw (what kind of object, which braces, which keys)
// and `inspect(value, opts)` itself, following Node's lib/internal/util/inspect.js.

import { formatProperty, reduceToSingleString } from './inspect-layout.js';
import { formatArray, formatArrayBuffer, formatMap, formatSet, formatTypedArray } from './inspect-lists.js';
import { formatError, getBoxedBase, getFunctionBase } from './inspect-parts.js';
import {
  boxedKind, getConstructorName, getCtxStyle, getKeys, getOwnNonIndexProperties, getPrefix, hasOwn,
  isArgumentsObject, isArrayBuffer, isDataView, isDate, isError, isMap, isPromise, isRegExp, isSet,
  isSharedArrayBuffer, isTypedArray, isWeakMap, isWeakSet, mapSizeGetter, propIsEnumerable, setSizeGetter,
  typedArrayTagGetter,
} from './inspect-types.js';
import {
  customInspectSymbol, formatNumber, formatPrimitive, inspectDefaultOptions, kArrayExtrasType, kObjectType,
} from './inspect.js';

/** @typedef {import('./inspect.js').InspectContext} InspectContext */

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {any} [recurseTimes] a number, except for a function's non-string name (inspect-parts.js), as in Node
 * @param {any} [typedArray]
 * @returns {string}
 */
export function formatValue(ctx, value, recurseTimes, typedArray) {
  if (typeof value !== 'object' && typeof value !== 'function') return formatPrimitive(value, ctx);
  if (value === null) return 'null';
  const context = value;
  if (ctx.customInspect) {
    let maybeCustom;
    try { maybeCustom = value[customInspectSymbol]; } catch {}
    if (typeof maybeCustom === 'function' && maybeCustom !== inspect) {
      const d = Object.getOwnPropertyDescriptor(value, 'constructor');
      if (!(d && d.value && d.value.prototype === value)) {
        const depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
        const opts = Object.assign({}, ctx.userOptions || {}, {
          showHidden: ctx.showHidden, depth: depth, colors: false, customInspect: ctx.customInspect,
          showProxy: ctx.showProxy, maxArrayLength: ctx.maxArrayLength, maxStringLength: ctx.maxStringLength,
          breakLength: ctx.breakLength, compact: ctx.compact, sorted: ctx.sorted, getters: ctx.getters,
          numericSeparator: ctx.numericSeparator, stylize: function (/** @type {string} */ s) { return s; },
        });
        const ret = maybeCustom.call(context, depth, opts, inspect);
        if (ret !== context) {
          if (typeof ret !== 'string') return formatValue(ctx, ret, recurseTimes);
          return ret.replaceAll('\n', '\n' + ' '.repeat(ctx.indentationLvl));
        }
      }
    }
  }
  if (ctx.seen.includes(value)) {
    let index = 1;
    if (ctx.circular === undefined) {
      ctx.circular = new Map();
      ctx.circular.set(value, index);
    } else {
      let known = ctx.circular.get(value);
      if (known === undefined) {
        known = ctx.circular.size + 1;
        ctx.circular.set(value, known);
      }
      index = known;
    }
    return '[Circular *' + index + ']';
  }
  return formatRaw(ctx, value, recurseTimes, typedArray);
}

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {number} recurseTimes
 * @param {any} typedArray
 * @returns {string}
 */
function formatRaw(ctx, value, recurseTimes, typedArray) {
  /** @type {any} set by every branch below that reaches the formatter */
  let keys;
  const constructor = getConstructorName(value, ctx, recurseTimes);
  let tag = '';
  try { tag = value[Symbol.toStringTag]; } catch {}
  if (typeof tag !== 'string' || (tag !== '' && (ctx.showHidden ? hasOwn : propIsEnumerable).call(value, Symbol.toStringTag))) {
    tag = '';
  }
  let base = '';
  /** @type {(ctx: InspectContext, value: any, recurseTimes: number) => string[]} */
  let formatter = function () { return []; };
  /** @type {any} set by every branch below that reaches the formatter */
  let braces;
  let noIterator = true;
  let extrasType = kObjectType;
  /** @type {string[] | undefined} */
  let extraKeys;

  if (Symbol.iterator in value || constructor === null) {
    noIterator = false;
    if (Array.isArray(value)) {
      const prefix = (constructor !== 'Array' || tag !== '') ? getPrefix(constructor, tag, 'Array', '(' + value.length + ')') : '';
      keys = getOwnNonIndexProperties(value, ctx.showHidden);
      braces = [prefix + '[', ']'];
      if (value.length === 0 && keys.length === 0) return braces[0] + ']';
      extrasType = kArrayExtrasType;
      formatter = formatArray;
    } else if (isSet(value)) {
      const size = setSizeGetter.call(value);
      const prefix = getPrefix(constructor, tag, 'Set', '(' + size + ')');
      keys = getKeys(value, ctx.showHidden);
      formatter = formatSet;
      if (size === 0 && keys.length === 0) return prefix + '{}';
      braces = [prefix + '{', '}'];
    } else if (isMap(value)) {
      const size = mapSizeGetter.call(value);
      const prefix = getPrefix(constructor, tag, 'Map', '(' + size + ')');
      keys = getKeys(value, ctx.showHidden);
      formatter = formatMap;
      if (size === 0 && keys.length === 0) return prefix + '{}';
      braces = [prefix + '{', '}'];
    } else if (isTypedArray(value)) {
      keys = getOwnNonIndexProperties(value, ctx.showHidden);
      const fallback = constructor === null ? typedArrayTagGetter.call(value) : '';
      const size = value.length;
      const prefix = getPrefix(constructor, tag, fallback, '(' + size + ')');
      braces = [prefix + '[', ']'];
      if (value.length === 0 && keys.length === 0 && !ctx.showHidden) return braces[0] + ']';
      formatter = formatTypedArray;
      extrasType = kArrayExtrasType;
    } else {
      noIterator = true;
    }
  }
  if (noIterator) {
    keys = getKeys(value, ctx.showHidden);
    braces = ['{', '}'];
    let kind;
    if (typeof value === 'function') {
      base = getFunctionBase(ctx, value, constructor, tag);
      if (keys.length === 0) return base;
    } else if (constructor === 'Object') {
      if (isArgumentsObject(value)) braces[0] = '[Arguments] {';
      else if (tag !== '') braces[0] = getPrefix(constructor, tag, 'Object') + '{';
      if (keys.length === 0) return braces[0] + '}';
    } else if (isRegExp(value)) {
      base = RegExp.prototype.toString.call(constructor !== null ? value : new RegExp(value));
      const prefix = getPrefix(constructor, tag, 'RegExp');
      if (prefix !== 'RegExp ') base = prefix + base;
      if (keys.length === 0 || (recurseTimes > ctx.depth && ctx.depth !== null)) return base;
    } else if (isDate(value)) {
      const t = Date.prototype.getTime.call(value);
      base = Number.isNaN(t) ? Date.prototype.toString.call(value) : Date.prototype.toISOString.call(value);
      const prefix = getPrefix(constructor, tag, 'Date');
      if (prefix !== 'Date ') base = prefix + base;
      if (keys.length === 0) return base;
    } else if (isError(value)) {
      base = formatError(value, constructor, tag, ctx, keys);
      if (keys.length === 0) return base;
    } else if (isArrayBuffer(value) || isSharedArrayBuffer(value)) {
      const arrayType = isArrayBuffer(value) ? 'ArrayBuffer' : 'SharedArrayBuffer';
      const prefix = getPrefix(constructor, tag, arrayType);
      if (typedArray === undefined) {
        formatter = formatArrayBuffer;
      } else if (keys.length === 0) {
        return prefix + '{ byteLength: ' + formatNumber(value.byteLength) + ' }';
      }
      braces[0] = prefix + '{';
      extraKeys = ['byteLength'];
    } else if (isDataView(value)) {
      braces[0] = getPrefix(constructor, tag, 'DataView') + '{';
      extraKeys = ['byteLength', 'byteOffset', 'buffer'];
    } else if (isPromise(value)) {
      braces[0] = getPrefix(constructor, tag, 'Promise') + '{';
      formatter = function () { return ['<pending>']; };
    } else if (isWeakSet(value)) {
      braces[0] = getPrefix(constructor, tag, 'WeakSet') + '{';
      formatter = function () { return ['<items unknown>']; };
    } else if (isWeakMap(value)) {
      braces[0] = getPrefix(constructor, tag, 'WeakMap') + '{';
      formatter = function () { return ['<items unknown>']; };
    } else if ((kind = boxedKind(value)) !== null) {
      base = getBoxedBase(value, ctx, keys, constructor, tag, kind);
      if (keys.length === 0) return base;
    } else {
      if (keys.length === 0) return getCtxStyle(value, constructor, tag) + '{}';
      braces[0] = getCtxStyle(value, constructor, tag) + '{';
    }
  }

  if (recurseTimes > ctx.depth && ctx.depth !== null) {
    let constructorName = getCtxStyle(value, constructor, tag).slice(0, -1);
    if (constructor !== null) constructorName = '[' + constructorName + ']';
    return constructorName;
  }
  recurseTimes += 1;
  ctx.seen.push(value);
  ctx.currentDepth = recurseTimes;
  /** @type {string[]} */
  let output;
  const indentationLvl = ctx.indentationLvl;
  try {
    output = formatter(ctx, value, recurseTimes);
    if (extraKeys !== undefined) {
      for (let i = 0; i < extraKeys.length; i++) {
        ctx.indentationLvl += 2;
        const str = formatValue(ctx, value[/** @type {string} */ (extraKeys[i])], recurseTimes, true);
        ctx.indentationLvl -= 2;
        output.push('[' + extraKeys[i] + ']: ' + str);
      }
    }
    for (let i = 0; i < keys.length; i++) {
      output.push(formatProperty(ctx, value, recurseTimes, keys[i], extrasType));
    }
  } catch (err) {
    if (!(err instanceof RangeError && /call stack/.test(err.message))) throw err;
    ctx.seen.pop();
    ctx.indentationLvl = indentationLvl;
    return '[' + getCtxStyle(value, constructor, tag).slice(0, -1) + ': Inspection interrupted prematurely. Maximum call stack size exceeded.]';
  }
  if (ctx.circular !== undefined) {
    const index = ctx.circular.get(value);
    if (index !== undefined) {
      const reference = '<ref *' + index + '>';
      if (ctx.compact !== true) base = base === '' ? reference : reference + ' ' + base;
      else braces[0] = reference + ' ' + braces[0];
    }
  }
  ctx.seen.pop();
  if (ctx.sorted) {
    const comparator = ctx.sorted === true ? undefined : ctx.sorted;
    if (extrasType === kObjectType) {
      output.sort(comparator);
    } else if (keys.length > 1) {
      const sorted = output.slice(output.length - keys.length).sort(comparator);
      output.splice(output.length - keys.length, keys.length, ...sorted);
    }
  }
  const res = reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
  const budget = ctx.budget[ctx.indentationLvl] || 0;
  const newLength = budget + res.length;
  ctx.budget[ctx.indentationLvl] = newLength;
  if (newLength > 2 ** 27) ctx.depth = -1;
  return res;
}

/**
 * @param {any} value
 * @param {any} [opts]
 */
export function inspect(value, opts) {
  /** @type {InspectContext & Record<string, any>} */
  const ctx = {
    budget: {}, indentationLvl: 0, seen: [], currentDepth: 0,
    showHidden: inspectDefaultOptions.showHidden, depth: inspectDefaultOptions.depth,
    colors: false, customInspect: inspectDefaultOptions.customInspect,
    showProxy: inspectDefaultOptions.showProxy, maxArrayLength: inspectDefaultOptions.maxArrayLength,
    maxStringLength: inspectDefaultOptions.maxStringLength, breakLength: inspectDefaultOptions.breakLength,
    compact: inspectDefaultOptions.compact, sorted: inspectDefaultOptions.sorted,
    getters: inspectDefaultOptions.getters, numericSeparator: inspectDefaultOptions.numericSeparator,
  };
  if (arguments.length > 1) {
    if (arguments.length > 2) {
      if (arguments[2] !== undefined) ctx.depth = arguments[2];
    }
    if (typeof opts === 'boolean') {
      ctx.showHidden = opts;
    } else if (opts) {
      const optKeys = Object.keys(opts);
      for (let i = 0; i < optKeys.length; ++i) {
        const key = /** @type {string} */ (optKeys[i]);
        if (hasOwn.call(inspectDefaultOptions, key)) ctx[key] = opts[key];
        else if (ctx.userOptions === undefined) ctx.userOptions = opts;
      }
    }
  }
  if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
  if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
  return formatValue(ctx, value, 0);
}
inspect.custom = customInspectSymbol;
Object.defineProperty(inspect, 'defaultOptions', {
  get() { return inspectDefaultOptions; },
  set(options) { return Object.assign(inspectDefaultOptions, options); },
});
