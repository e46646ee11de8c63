// @ts-check
// In-isolate `util.inspect`, a compact port of Node 24's
// lib/internal/util/inspect.js (MIT, Node.js contributors) without colours, proxies
// and V8-internal type checks: console.log output of programs is graded byte for
// byte, so arrays/objects must line-break and group exactly like Node's. This part:
// options, string escaping, primitives and display width. (node-inspect-extracted
// was tried instead and dropped: inside the isolate it throws on null-prototype
// objects, `URL is not defined`, and shows every Promise as pending.)

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
export const inspectDefaultOptions = {
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
