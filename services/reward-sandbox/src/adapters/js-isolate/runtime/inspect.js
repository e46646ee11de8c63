// @ts-check
// In-isolate `util.inspect`, a compact port of Node 24's
// lib/internal/util/inspect.js (MIT, Node.js contributors) without colours, proxies
// and V8-internal type checks: console.log output of programs is graded byte for
// byte, so arrays/objects must line-break and group exactly like Node's. This part:
// options, string escaping, primitives, and the object formatter itself.

import {
  formatArray, formatArrayBuffer, formatError, formatMap, formatProperty, formatSet, formatTypedArray,
  getBoxedBase, getFunctionBase, reduceToSingleString,
} from './inspect-parts.js';
import {
  boxedKind, getConstructorName, getCtxStyle, getKeys, getOwnNonIndexProperties, getPrefix, hasOwn,
  isArgumentsObject, isArrayBuffer, isDataView, isDate, isError, isMap, isPromise, isRegExp, isSet,
  isSharedArrayBuffer, isTypedArray, isWeakMap, isWeakSet, mapSizeGetter, propIsEnumerable, setSizeGetter,
  typedArrayTagGetter,
} from './inspect-types.js';

/**
 * Formatting state threaded through every formatter (Node's `ctx`). The option
 * fields come from the program's `inspect(value, opts)` call unchecked, as in Node,
 * hence `any`.
 * @typedef {object} InspectContext
 * @property {Record<number, number>} budget
 * @property {number} indentationLvl
 * @property {unknown[]} seen
 * @property {number} currentDepth
 * @property {Map<unknown, number>} [circular]
 * @property {object} [userOptions]
 * @property {any} showHidden
 * @property {any} depth
 * @property {any} colors
 * @property {any} customInspect
 * @property {any} showProxy
 * @property {any} maxArrayLength
 * @property {any} maxStringLength
 * @property {any} breakLength
 * @property {any} compact
 * @property {any} sorted
 * @property {any} getters
 * @property {any} numericSeparator
 */

export const kObjectType = 0, kArrayType = 1, kArrayExtrasType = 2;
export const customInspectSymbol = Symbol.for('nodejs.util.inspect.custom');
const inspectDefaultOptions = {
  showHidden: false, depth: 2, colors: false, customInspect: true, showProxy: false,
  maxArrayLength: 100, maxStringLength: 10000, breakLength: 80, compact: 3,
  sorted: false, getters: false, numericSeparator: false,
};
const strEscapeRe = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const strEscapeReG = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const strEscapeReSingle = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const strEscapeReSingleG = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export const keyStrRe = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
export const numberRe = /^(0|[1-9][0-9]*)$/;
export const classRe = /^(\s+[^(]*?)\s*{/;
export const stripCommentsRe = /(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g;
export const BACKTICK = String.fromCharCode(96);
// Escape table for control characters, quote and backslash; built on first use
// because every isolate evaluates this file and most programs never need it.
/** @type {string[] | null} */
let metaTable = null;
/** @param {number} code */
function metaFor(code) {
  if (metaTable === null) {
    metaTable = [];
    for (let i = 0; i < 0xa0; i++) {
      metaTable.push(i < 0x20 || (i >= 0x7f && i < 0xa0) ? '\\x' + i.toString(16).toUpperCase().padStart(2, '0') : '');
    }
    metaTable[8] = '\\b'; metaTable[9] = '\\t'; metaTable[10] = '\\n'; metaTable[12] = '\\f'; metaTable[13] = '\\r';
    metaTable[39] = "\\'"; metaTable[92] = '\\\\';
  }
  return /** @type {string} */ (metaTable[code]);
}

/**
 * @param {string} str
 * @param {number} quotes
 */
function addQuotes(str, quotes) {
  if (quotes === -1) return '"' + str + '"';
  if (quotes === -2) return BACKTICK + str + BACKTICK;
  return "'" + str + "'";
}

/** @param {string} str */
export function escapeFn(str) {
  const charCode = str.charCodeAt(0);
  return charCode < 0xa0 ? metaFor(charCode) : '\\u' + charCode.toString(16);
}

/** @param {string} str */
export function strEscape(str) {
  let escapeTest = strEscapeRe;
  let escapeReplace = strEscapeReG;
  let singleQuote = 39;
  if (str.includes("'")) {
    if (!str.includes('"')) singleQuote = -1;
    else if (!str.includes(BACKTICK) && !str.includes('$' + '{')) singleQuote = -2;
    if (singleQuote !== 39) { escapeTest = strEscapeReSingle; escapeReplace = strEscapeReSingleG; }
  }
  if (str.length < 5000 && !escapeTest.test(str)) return addQuotes(str, singleQuote);
  if (str.length > 100) {
    str = str.replace(escapeReplace, escapeFn);
    return addQuotes(str, singleQuote);
  }
  let result = '';
  let last = 0;
  for (let i = 0; i < str.length; i++) {
    const point = str.charCodeAt(i);
    if (point === singleQuote || point === 92 || point < 32 || (point > 126 && point < 160)) {
      if (last === i) result += metaFor(point);
      else result += str.slice(last, i) + metaFor(point);
      last = i + 1;
    } else if (point >= 0xd800 && point <= 0xdfff) {
      if (point <= 0xdbff && i + 1 < str.length) {
        const next = str.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
      }
      result += str.slice(last, i) + '\\u' + point.toString(16);
      last = i + 1;
    }
  }
  if (last !== str.length) result += str.slice(last);
  return addQuotes(result, singleQuote);
}

/** @param {any} number */
export function formatNumber(number) {
  if (Object.is(number, -0)) return '-0';
  return '' + number;
}
/** @param {any} bigint */
export function formatBigInt(bigint) { return String(bigint) + 'n'; }

/**
 * @param {any} value
 * @param {InspectContext} ctx
 */
export function formatPrimitive(value, ctx) {
  if (typeof value === 'string') {
    let trailer = '';
    if (value.length > ctx.maxStringLength) {
      const remaining = value.length - ctx.maxStringLength;
      value = value.slice(0, ctx.maxStringLength);
      trailer = '... ' + remaining + ' more character' + (remaining > 1 ? 's' : '');
    }
    if (ctx.compact !== true && value.length > 16 && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
      return value.split(/(?<=\n)/).map(strEscape).join(' +\n' + ' '.repeat(ctx.indentationLvl + 2)) + trailer;
    }
    return strEscape(value) + trailer;
  }
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'bigint') return formatBigInt(value);
  if (typeof value === 'boolean') return '' + value;
  if (typeof value === 'undefined') return 'undefined';
  return Symbol.prototype.toString.call(value);
}

/** @param {any} code */
function isZeroWidthCodePoint(code) {
  return code <= 0x1F || (code >= 0x7F && code <= 0x9F) || (code >= 0x300 && code <= 0x36F) ||
    (code >= 0x200B && code <= 0x200F) || (code >= 0x20D0 && code <= 0x20FF) ||
    (code >= 0xFE00 && code <= 0xFE0F) || (code >= 0xFE20 && code <= 0xFE2F) ||
    (code >= 0xE0100 && code <= 0xE01EF);
}
/** @param {any} code */
function isFullWidthCodePoint(code) {
  return code >= 0x1100 && (code <= 0x115f || code === 0x2329 || code === 0x232a ||
    (code >= 0x2e80 && code <= 0x3247 && code !== 0x303f) || (code >= 0x3250 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0xa4c6) || (code >= 0xa960 && code <= 0xa97c) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe10 && code <= 0xfe19) || (code >= 0xfe30 && code <= 0xfe6b) ||
    (code >= 0xff01 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1b000 && code <= 0x1b001) || (code >= 0x1f200 && code <= 0x1f251) ||
    (code >= 0x1f300 && code <= 0x1f64f) || (code >= 0x20000 && code <= 0x3fffd));
}
/** @param {string} str */
export function getStringWidth(str) {
  let width = 0;
  let ascii = true;
  for (let i = 0; i < str.length; i++) {
    const code = str.charCodeAt(i);
    if (code >= 127) { ascii = false; break; }
    width += code >= 32 ? 1 : 0;
  }
  if (ascii) return width;
  width = 0;
  for (const ch of str.normalize('NFC')) {
    const code = ch.codePointAt(0);
    if (isFullWidthCodePoint(code)) width += 2;
    else if (!isZeroWidthCodePoint(code)) width++;
  }
  return width;
}

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

