// In-isolate source of `util.inspect` / `util.format`, a compact port of Node 24's
// lib/internal/util/inspect.js (MIT, Node.js contributors) without colours, proxies
// and V8-internal type checks: console.log output of programs is graded byte for
// byte, so arrays/objects must line-break and group exactly like Node's.
// This is a function-body fragment: it is concatenated with the other shim
// fragments inside one IIFE, so the names below are shared (`inspect`, `format`, ...).
// Written without template literals so that it can live inside String.raw.

/** Source fragment defining `inspect(value, opts)`, `format(...args)` and `formatWithOptions(opts, args)`. */
export const INSPECT_SOURCE = String.raw`
const kObjectType = 0, kArrayType = 1, kArrayExtrasType = 2;
const customInspectSymbol = Symbol.for('nodejs.util.inspect.custom');
const inspectDefaultOptions = {
  showHidden: false, depth: 2, colors: false, customInspect: true, showProxy: false,
  maxArrayLength: 100, maxStringLength: 10000, breakLength: 80, compact: 3,
  sorted: false, getters: false, numericSeparator: false,
};
const strEscapeRe = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const strEscapeReG = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const strEscapeReSingle = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const strEscapeReSingleG = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const keyStrRe = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
const numberRe = /^(0|[1-9][0-9]*)$/;
const classRe = /^(\s+[^(]*?)\s*{/;
const stripCommentsRe = /(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g;
const BACKTICK = String.fromCharCode(96);
// Escape table for control characters, quote and backslash; built on first use
// because every isolate evaluates this file and most programs never need it.
let metaTable = null;
function metaFor(code) {
  if (metaTable === null) {
    metaTable = [];
    for (let i = 0; i < 0xa0; i++) {
      metaTable.push(i < 0x20 || (i >= 0x7f && i < 0xa0) ? '\\x' + i.toString(16).toUpperCase().padStart(2, '0') : '');
    }
    metaTable[8] = '\\b'; metaTable[9] = '\\t'; metaTable[10] = '\\n'; metaTable[12] = '\\f'; metaTable[13] = '\\r';
    metaTable[39] = "\\'"; metaTable[92] = '\\\\';
  }
  return metaTable[code];
}

const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTagGetter = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
const mapSizeGetter = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
const setSizeGetter = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get;
const abLengthGetter = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
const sabLengthGetter = typeof SharedArrayBuffer === 'function' ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength').get : null;
const regexpSourceGetter = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get;
const dvLengthGetter = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get;
const AsyncFunctionProto = Object.getPrototypeOf(async function () {});
const GeneratorFunctionProto = Object.getPrototypeOf(function* () {});
const AsyncGeneratorFunctionProto = Object.getPrototypeOf(async function* () {});
const objToString = Object.prototype.toString;
const hasOwn = Object.prototype.hasOwnProperty;
const propIsEnumerable = Object.prototype.propertyIsEnumerable;

function brand(getter, v) { try { getter.call(v); return true; } catch { return false; } }
function isTypedArray(v) { return typedArrayTagGetter.call(v) !== undefined; }
function isMap(v) { return brand(mapSizeGetter, v); }
function isSet(v) { return brand(setSizeGetter, v); }
function isDate(v) { try { Date.prototype.getTime.call(v); return true; } catch { return false; } }
function isRegExp(v) { return brand(regexpSourceGetter, v) && v !== RegExp.prototype; }
function isArrayBuffer(v) { return brand(abLengthGetter, v); }
function isSharedArrayBuffer(v) { return sabLengthGetter !== null && brand(sabLengthGetter, v); }
function isDataView(v) { return brand(dvLengthGetter, v); }
function isPromise(v) { return v instanceof Promise; }
function isWeakMap(v) { try { WeakMap.prototype.has.call(v, {}); return true; } catch { return false; } }
function isWeakSet(v) { try { WeakSet.prototype.has.call(v, {}); return true; } catch { return false; } }
function isError(v) {
  if (typeof Error.isError === 'function') return Error.isError(v) || v instanceof Error;
  return v instanceof Error || objToString.call(v) === '[object Error]';
}
function isArgumentsObject(v) { return objToString.call(v) === '[object Arguments]'; }
function boxedKind(v) {
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

function getConstructorName(obj, ctx, recurseTimes) {
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

function getPrefix(constructor, tag, fallback, size) {
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

function getKeys(value, showHidden) {
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

function isIndexKey(k) { return typeof k === 'string' && numberRe.test(k) && Number(k) < 4294967295; }

function getOwnNonIndexProperties(value, showHidden) {
  const keys = showHidden ? Reflect.ownKeys(value) : getKeys(value, false);
  const out = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (!isIndexKey(k)) out.push(k);
  }
  return out;
}

function getCtxStyle(value, constructor, tag) {
  let fallback = '';
  if (constructor === null) {
    fallback = internalGetConstructorName(value);
    if (fallback === tag) fallback = 'Object';
  }
  return getPrefix(constructor, tag, fallback);
}

function addQuotes(str, quotes) {
  if (quotes === -1) return '"' + str + '"';
  if (quotes === -2) return BACKTICK + str + BACKTICK;
  return "'" + str + "'";
}

function escapeFn(str) {
  const charCode = str.charCodeAt(0);
  return charCode < 0xa0 ? metaFor(charCode) : '\\u' + charCode.toString(16);
}

function strEscape(str) {
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

function formatNumber(number) {
  if (Object.is(number, -0)) return '-0';
  return '' + number;
}
function formatBigInt(bigint) { return String(bigint) + 'n'; }

function formatPrimitive(value, ctx) {
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

function isZeroWidthCodePoint(code) {
  return code <= 0x1F || (code >= 0x7F && code <= 0x9F) || (code >= 0x300 && code <= 0x36F) ||
    (code >= 0x200B && code <= 0x200F) || (code >= 0x20D0 && code <= 0x20FF) ||
    (code >= 0xFE00 && code <= 0xFE0F) || (code >= 0xFE20 && code <= 0xFE2F) ||
    (code >= 0xE0100 && code <= 0xE01EF);
}
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
function getStringWidth(str) {
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

function formatValue(ctx, value, recurseTimes, typedArray) {
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
          numericSeparator: ctx.numericSeparator, stylize: function (s) { return s; },
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
      index = ctx.circular.get(value);
      if (index === undefined) {
        index = ctx.circular.size + 1;
        ctx.circular.set(value, index);
      }
    }
    return '[Circular *' + index + ']';
  }
  return formatRaw(ctx, value, recurseTimes, typedArray);
}

function formatRaw(ctx, value, recurseTimes, typedArray) {
  let keys;
  const constructor = getConstructorName(value, ctx, recurseTimes);
  let tag = '';
  try { tag = value[Symbol.toStringTag]; } catch {}
  if (typeof tag !== 'string' || (tag !== '' && (ctx.showHidden ? hasOwn : propIsEnumerable).call(value, Symbol.toStringTag))) {
    tag = '';
  }
  let base = '';
  let formatter = function () { return []; };
  let braces;
  let noIterator = true;
  let extrasType = kObjectType;
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
  let output;
  const indentationLvl = ctx.indentationLvl;
  try {
    output = formatter(ctx, value, recurseTimes);
    if (extraKeys !== undefined) {
      for (let i = 0; i < extraKeys.length; i++) {
        ctx.indentationLvl += 2;
        const str = formatValue(ctx, value[extraKeys[i]], recurseTimes, true);
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

function getBoxedBase(value, ctx, keys, constructor, tag, type) {
  let primitive;
  if (type === 'Number') primitive = Number.prototype.valueOf.call(value);
  else if (type === 'String') { primitive = String.prototype.valueOf.call(value); keys.splice(0, value.length); }
  else if (type === 'Boolean') primitive = Boolean.prototype.valueOf.call(value);
  else if (type === 'BigInt') primitive = BigInt.prototype.valueOf.call(value);
  else primitive = Symbol.prototype.valueOf.call(value);
  let base = '[' + type;
  if (type !== constructor) base += constructor === null ? ' (null prototype)' : ' (' + constructor + ')';
  base += ': ' + formatPrimitive(primitive, Object.assign({}, ctx, { compact: true })) + ']';
  if (tag !== '' && tag !== constructor) base += ' [' + tag + ']';
  return base;
}

function getClassBase(value, constructor, tag) {
  const name = (hasOwn.call(value, 'name') && value.name) || '(anonymous)';
  let base = 'class ' + name;
  if (constructor !== 'Function' && constructor !== null) base += ' [' + constructor + ']';
  if (tag !== '' && constructor !== tag) base += ' [' + tag + ']';
  if (constructor !== null) {
    const superName = Object.getPrototypeOf(value).name;
    if (superName) base += ' extends ' + superName;
  } else {
    base += ' extends [null prototype]';
  }
  return '[' + base + ']';
}

function getFunctionBase(ctx, value, constructor, tag) {
  let stringified = '';
  try { stringified = Function.prototype.toString.call(value); } catch {}
  if (stringified.startsWith('class') && stringified.endsWith('}')) {
    const slice = stringified.slice(5, -1);
    const bracketIndex = slice.indexOf('{');
    if (bracketIndex !== -1 && (!slice.slice(0, bracketIndex).includes('(') || classRe.test(slice.replace(stripCommentsRe, '')))) {
      return getClassBase(value, constructor, tag);
    }
  }
  let type = 'Function';
  const proto = Object.getPrototypeOf(value);
  if (proto === GeneratorFunctionProto) type = 'GeneratorFunction';
  else if (proto === AsyncFunctionProto) type = 'AsyncFunction';
  else if (proto === AsyncGeneratorFunctionProto) type = 'AsyncGeneratorFunction';
  let base = '[' + type;
  if (constructor === null) base += ' (null prototype)';
  if (value.name === '') base += ' (anonymous)';
  else base += ': ' + (typeof value.name === 'string' ? value.name : formatValue(ctx, value.name));
  base += ']';
  if (constructor !== type && constructor !== null) base += ' ' + constructor;
  if (tag !== '' && constructor !== tag) base += ' [' + tag + ']';
  return base;
}

function getStackString(error) {
  let stack;
  try { stack = error.stack; } catch {}
  if (stack) {
    if (typeof stack === 'string') return stack;
    return Error.prototype.toString.call(error) + '\n    ' + inspect(stack);
  }
  return Error.prototype.toString.call(error);
}

function improveStack(stack, constructor, name, tag) {
  let len = name.length;
  if (constructor === null || (name.endsWith('Error') && stack.startsWith(name) &&
      (stack.length === len || stack[len] === ':' || stack[len] === '\n'))) {
    let fallback = 'Error';
    if (constructor === null) {
      const start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n {4}at)/.exec(stack) || /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
      fallback = (start && start[1]) || '';
      len = fallback.length;
      fallback = fallback || 'Error';
    }
    const prefix = getPrefix(constructor, tag, fallback).slice(0, -1);
    if (name !== prefix) {
      if (prefix.includes(name)) {
        if (len === 0) stack = prefix + ': ' + stack;
        else stack = prefix + stack.slice(len);
      } else {
        stack = prefix + ' [' + name + ']' + stack.slice(len);
      }
    }
  }
  return stack;
}

function formatError(err, constructor, tag, ctx, keys) {
  let message, name, stack;
  try { stack = getStackString(err); } catch { return objToString.call(err); }
  try { message = err.message; } catch {}
  try { name = err.name; } catch {}
  if (!ctx.showHidden && keys.length !== 0) {
    let index = keys.indexOf('stack');
    if (index !== -1) keys.splice(index, 1);
    index = keys.indexOf('message');
    if (index !== -1 && (typeof message !== 'string' || stack.includes(message))) keys.splice(index, 1);
    index = keys.indexOf('name');
    if (index !== -1 && (typeof name !== 'string' || stack.includes(name))) keys.splice(index, 1);
  }
  if (name === undefined || name === null) name = 'Error';
  if (hasOwn.call(err, 'cause') && (keys.length === 0 || !keys.includes('cause'))) keys.push('cause');
  try {
    const errors = err.errors;
    if (Array.isArray(errors) && hasOwn.call(err, 'errors') && (keys.length === 0 || !keys.includes('errors'))) keys.push('errors');
  } catch {}
  if (typeof name === 'string') stack = improveStack(stack, constructor, name, tag);
  let pos = (message && stack.indexOf(message)) || -1;
  if (pos !== -1) pos += message.length;
  const stackStart = stack.indexOf('\n    at', pos);
  if (stackStart === -1) stack = '[' + stack + ']';
  if (ctx.indentationLvl !== 0) stack = stack.replaceAll('\n', '\n' + ' '.repeat(ctx.indentationLvl));
  return stack;
}

function groupArrayElements(ctx, output, value) {
  let totalLength = 0;
  let maxLength = 0;
  let i = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--;
  const separatorSpace = 2;
  const dataLen = new Array(outputLength);
  for (; i < outputLength; i++) {
    const len = getStringWidth(output[i]);
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength && (totalLength / actualMax > 5 || maxLength <= 6)) {
    const averageBias = Math.sqrt(actualMax - totalLength / output.length);
    const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const tmp = [];
    const maxLineLength = [];
    for (let c = 0; c < columns; c++) {
      let lineMaxLength = 0;
      for (let j = c; j < output.length; j += columns) {
        if (dataLen[j] > lineMaxLength) lineMaxLength = dataLen[j];
      }
      maxLineLength.push(lineMaxLength + separatorSpace);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let k = 0; k < output.length; k++) {
        if (typeof value[k] !== 'number' && typeof value[k] !== 'bigint') { padStart = false; break; }
      }
    }
    for (let k = 0; k < outputLength; k += columns) {
      const max = Math.min(k + columns, outputLength);
      let str = '';
      let j = k;
      for (; j < max - 1; j++) {
        const padding = maxLineLength[j - k] + output[j].length - dataLen[j];
        str += padStart ? (output[j] + ', ').padStart(padding, ' ') : (output[j] + ', ').padEnd(padding, ' ');
      }
      if (padStart) {
        const padding = maxLineLength[j - k] + output[j].length - dataLen[j] - separatorSpace;
        str += output[j].padStart(padding, ' ');
      } else {
        str += output[j];
      }
      tmp.push(str);
    }
    if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
    output = tmp;
  }
  return output;
}

function remainingText(remaining) { return '... ' + remaining + ' more item' + (remaining > 1 ? 's' : ''); }

function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
  const keys = Object.keys(value);
  let index = i;
  for (; i < keys.length && output.length < maxLength; i++) {
    const key = keys[i];
    const tmp = +key;
    if (tmp > 2 ** 32 - 2) break;
    if ('' + index !== key) {
      if (!numberRe.test(key)) break;
      const emptyItems = tmp - index;
      output.push('<' + emptyItems + ' empty item' + (emptyItems > 1 ? 's' : '') + '>');
      index = tmp;
      if (output.length === maxLength) break;
    }
    output.push(formatProperty(ctx, value, recurseTimes, key, kArrayType));
    index++;
  }
  const remaining = value.length - index;
  if (output.length !== maxLength) {
    if (remaining > 0) output.push('<' + remaining + ' empty item' + (remaining > 1 ? 's' : '') + '>');
  } else if (remaining > 0) {
    output.push(remainingText(remaining));
  }
  return output;
}

function formatArray(ctx, value, recurseTimes) {
  const valLen = value.length;
  const len = Math.min(Math.max(0, ctx.maxArrayLength), valLen);
  const remaining = valLen - len;
  const output = [];
  for (let i = 0; i < len; i++) {
    const desc = Object.getOwnPropertyDescriptor(value, i);
    if (desc === undefined) return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
    output.push(formatProperty(ctx, value, recurseTimes, i, kArrayType, desc));
  }
  if (remaining > 0) output.push(remainingText(remaining));
  return output;
}

function formatTypedArray(ctx, value) {
  const length = value.length;
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const remaining = length - maxLength;
  const output = new Array(maxLength);
  const fmt = length > 0 && typeof value[0] === 'number' ? formatNumber : formatBigInt;
  for (let i = 0; i < maxLength; ++i) output[i] = fmt(value[i]);
  if (remaining > 0) output[maxLength] = remainingText(remaining);
  return output;
}

function formatArrayBuffer(ctx, value) {
  let buffer;
  try { buffer = new Uint8Array(value); } catch { return ['(detached)']; }
  const n = Math.min(ctx.maxArrayLength, buffer.length);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(buffer[i].toString(16).padStart(2, '0'));
  let str = parts.join(' ');
  const remaining = buffer.length - ctx.maxArrayLength;
  if (remaining > 0) str += ' ... ' + remaining + ' more byte' + (remaining > 1 ? 's' : '');
  return ['[Uint8Contents]: <' + str + '>'];
}

function formatSet(ctx, value, recurseTimes) {
  const length = setSizeGetter.call(value);
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const remaining = length - maxLength;
  const output = [];
  ctx.indentationLvl += 2;
  let i = 0;
  for (const v of Set.prototype.values.call(value)) {
    if (i >= maxLength) break;
    output.push(formatValue(ctx, v, recurseTimes));
    i++;
  }
  if (remaining > 0) output.push(remainingText(remaining));
  ctx.indentationLvl -= 2;
  return output;
}

function formatMap(ctx, value, recurseTimes) {
  const length = mapSizeGetter.call(value);
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const remaining = length - maxLength;
  const output = [];
  ctx.indentationLvl += 2;
  let i = 0;
  for (const entry of Map.prototype.entries.call(value)) {
    if (i >= maxLength) break;
    output.push(formatValue(ctx, entry[0], recurseTimes) + ' => ' + formatValue(ctx, entry[1], recurseTimes));
    i++;
  }
  if (remaining > 0) output.push(remainingText(remaining));
  ctx.indentationLvl -= 2;
  return output;
}

function formatProperty(ctx, value, recurseTimes, key, type, desc) {
  let name, str;
  let extra = ' ';
  if (desc === undefined) desc = Object.getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
  if (desc.value !== undefined) {
    const diff = (ctx.compact !== true || type !== kObjectType) ? 2 : 3;
    ctx.indentationLvl += diff;
    str = formatValue(ctx, desc.value, recurseTimes);
    if (diff === 3 && ctx.breakLength < getStringWidth(str)) extra = '\n' + ' '.repeat(ctx.indentationLvl);
    ctx.indentationLvl -= diff;
  } else if (desc.get !== undefined) {
    const label = desc.set !== undefined ? 'Getter/Setter' : 'Getter';
    if (ctx.getters && (ctx.getters === true || (ctx.getters === 'get' && desc.set === undefined) ||
        (ctx.getters === 'set' && desc.set !== undefined))) {
      ctx.indentationLvl += 2;
      try {
        const tmp = desc.get.call(value);
        if (tmp === null) str = '[' + label + ': null]';
        else if (typeof tmp === 'object' || typeof tmp === 'function') str = '[' + label + '] ' + formatValue(ctx, tmp, recurseTimes);
        else str = '[' + label + ': ' + formatPrimitive(tmp, ctx) + ']';
      } catch (err) {
        str = '[' + label + ': <Inspection threw (' + formatValue(ctx, err, recurseTimes) + ')>]';
      }
      ctx.indentationLvl -= 2;
    } else {
      str = '[' + label + ']';
    }
  } else if (desc.set !== undefined) {
    str = '[Setter]';
  } else {
    str = 'undefined';
  }
  if (type === kArrayType) return str;
  if (typeof key === 'symbol') {
    name = Symbol.prototype.toString.call(key).replace(strEscapeReG, escapeFn);
  } else if (keyStrRe.test(key)) {
    name = key === '__proto__' ? "['__proto__']" : key;
  } else {
    name = strEscape(key);
  }
  if (desc.enumerable === false) name = '[' + name + ']';
  return name + ':' + extra + str;
}

function isBelowBreakLength(ctx, output, start, base) {
  if (ctx.breakLength === Infinity) {
    if (base !== '' && base.includes('\n')) return false;
    for (let i = 0; i < output.length; i++) if (output[i].includes('\n')) return false;
    return true;
  }
  let totalLength = output.length + start;
  if (totalLength + output.length > ctx.breakLength) return false;
  for (let i = 0; i < output.length; i++) {
    totalLength += output[i].length;
    if (totalLength > ctx.breakLength) return false;
  }
  return base === '' || !base.includes('\n');
}

function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
  if (ctx.compact !== true) {
    if (typeof ctx.compact === 'number' && ctx.compact >= 1) {
      const entries = output.length;
      if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
      if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
        const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        if (isBelowBreakLength(ctx, output, start, base)) {
          const joined = output.join(', ');
          if (!joined.includes('\n')) {
            return (base ? base + ' ' : '') + braces[0] + ' ' + joined + ' ' + braces[1];
          }
        }
      }
    }
    const indentation = '\n' + ' '.repeat(ctx.indentationLvl);
    return (base ? base + ' ' : '') + braces[0] + indentation + '  ' + output.join(',' + indentation + '  ') + indentation + braces[1];
  }
  if (isBelowBreakLength(ctx, output, 0, base)) {
    return braces[0] + (base ? ' ' + base : '') + ' ' + output.join(', ') + ' ' + braces[1];
  }
  const indentation = ' '.repeat(ctx.indentationLvl);
  const ln = base === '' && braces[0].length === 1 ? ' ' : (base ? ' ' + base : '') + '\n' + indentation + '  ';
  return braces[0] + ln + output.join(',\n' + indentation + '  ') + ' ' + braces[1];
}

function inspect(value, opts) {
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
        const key = optKeys[i];
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

let builtInObjectNames = null;
function hasBuiltInToString(value) {
  let hasOwnToString = function (o, k) { return hasOwn.call(o, k); };
  let hasOwnToPrimitive = hasOwnToString;
  const no = function () { return false; };
  if (typeof value.toString !== 'function') {
    if (typeof value[Symbol.toPrimitive] !== 'function') return true;
    else if (hasOwn.call(value, Symbol.toPrimitive)) return false;
    hasOwnToString = no;
  } else if (hasOwn.call(value, 'toString')) {
    return false;
  } else if (typeof value[Symbol.toPrimitive] !== 'function') {
    hasOwnToPrimitive = no;
  } else if (hasOwn.call(value, Symbol.toPrimitive)) {
    return false;
  }
  let pointer = value;
  do {
    pointer = Object.getPrototypeOf(pointer);
  } while (pointer !== null && !hasOwnToString(pointer, 'toString') && !hasOwnToPrimitive(pointer, Symbol.toPrimitive));
  if (pointer === null) return true;
  const descriptor = Object.getOwnPropertyDescriptor(pointer, 'constructor');
  if (builtInObjectNames === null) {
    builtInObjectNames = new Set(Object.getOwnPropertyNames(globalThis).filter(function (e) { return /^[A-Z][a-zA-Z0-9]+$/.test(e); }));
  }
  return descriptor !== undefined && typeof descriptor.value === 'function' && builtInObjectNames.has(descriptor.value.name);
}

function tryStringify(arg) {
  try {
    return JSON.stringify(arg);
  } catch (err) {
    if (err instanceof TypeError && /circular/i.test(String(err.message))) return '[Circular]';
    throw err;
  }
}

function formatWithOptions(inspectOptions, args) {
  const first = args[0];
  let a = 0;
  let str = '';
  let join = '';
  if (typeof first === 'string') {
    if (args.length === 1) return first;
    let tempStr;
    let lastPos = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) === 37) {
        const nextChar = first.charCodeAt(++i);
        if (a + 1 !== args.length) {
          switch (nextChar) {
            case 115: {
              const tempArg = args[++a];
              if (typeof tempArg === 'number') tempStr = formatNumber(tempArg);
              else if (typeof tempArg === 'bigint') tempStr = formatBigInt(tempArg);
              else if (typeof tempArg !== 'object' || tempArg === null || !hasBuiltInToString(tempArg)) tempStr = String(tempArg);
              else tempStr = inspect(tempArg, Object.assign({}, inspectOptions, { compact: 3, colors: false, depth: 0 }));
              break;
            }
            case 106: tempStr = tryStringify(args[++a]); break;
            case 100: {
              const tempNum = args[++a];
              if (typeof tempNum === 'bigint') tempStr = formatBigInt(tempNum);
              else if (typeof tempNum === 'symbol') tempStr = 'NaN';
              else tempStr = formatNumber(Number(tempNum));
              break;
            }
            case 79: tempStr = inspect(args[++a], inspectOptions); break;
            case 111: tempStr = inspect(args[++a], Object.assign({}, inspectOptions, { showHidden: true, showProxy: true, depth: 4 })); break;
            case 105: {
              const tempInteger = args[++a];
              if (typeof tempInteger === 'bigint') tempStr = formatBigInt(tempInteger);
              else if (typeof tempInteger === 'symbol') tempStr = 'NaN';
              else tempStr = formatNumber(Number.parseInt(tempInteger));
              break;
            }
            case 102: {
              const tempFloat = args[++a];
              if (typeof tempFloat === 'symbol') tempStr = 'NaN';
              else tempStr = formatNumber(Number.parseFloat(tempFloat));
              break;
            }
            case 99: a += 1; tempStr = ''; break;
            case 37: str += first.slice(lastPos, i); lastPos = i + 1; continue;
            default: continue;
          }
          if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
          str += tempStr;
          lastPos = i + 1;
        } else if (nextChar === 37) {
          str += first.slice(lastPos, i);
          lastPos = i + 1;
        }
      }
    }
    if (lastPos !== 0) {
      a++;
      join = ' ';
      if (lastPos < first.length) str += first.slice(lastPos);
    }
  }
  while (a < args.length) {
    const value = args[a];
    str += join;
    str += typeof value !== 'string' ? inspect(value, inspectOptions) : value;
    join = ' ';
    a++;
  }
  return str;
}

function format() {
  const args = new Array(arguments.length);
  for (let i = 0; i < arguments.length; i++) args[i] = arguments[i];
  return formatWithOptions(undefined, args);
}
`;
