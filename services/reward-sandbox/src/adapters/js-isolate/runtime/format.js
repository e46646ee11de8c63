// @ts-check
// In-isolate `util.format` / `util.formatWithOptions` (the printf-like layer under
// console.log), ported from Node's lib/internal/util/inspect.js.

import { hasOwn } from './inspect-types.js';
import { inspect } from './inspect-value.js';
import { formatBigInt, formatNumber } from './inspect.js';

/** @type {Set<string> | null} */
let builtInObjectNames = null;
/** @param {any} value */
function hasBuiltInToString(value) {
  /**
   * @param {any} o
   * @param {any} k
   */
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

/** @param {any} arg */
function tryStringify(arg) {
  try {
    return JSON.stringify(arg);
  } catch (err) {
    if (err instanceof TypeError && /circular/i.test(String(err.message))) return '[Circular]';
    throw err;
  }
}

/**
 * @param {any} inspectOptions
 * @param {any} args
 */
export function formatWithOptions(inspectOptions, args) {
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
              // biome-ignore lint/correctness/useParseIntRadix: %i parses as Node's format does (no radix: '0x10' is 16)
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

export function format() {
  const args = new Array(arguments.length);
  for (let i = 0; i < arguments.length; i++) args[i] = arguments[i];
  return formatWithOptions(undefined, args);
}
