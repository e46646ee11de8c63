// @ts-check
// In-isolate `util.inspect`, properties (`key: value`) and the final layout: one
// line when it fits in breakLength, else one entry per line, as Node decides.

import { groupArrayElements } from './inspect-lists.js';
import { formatValue } from './inspect-value.js';
import {
  escapeFn, formatPrimitive, getStringWidth, kArrayExtrasType, kArrayType, keyStrRe, kObjectType, strEscape,
  strEscapeReG,
} from './inspect.js';

/** @typedef {import('./inspect.js').InspectContext} InspectContext */

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {number} recurseTimes
 * @param {any} key
 * @param {number} type
 * @param {any} [desc]
 */
export function formatProperty(ctx, value, recurseTimes, key, type, desc) {
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

/**
 * @param {InspectContext} ctx
 * @param {string[]} output
 * @param {number} start
 * @param {string} base
 */
function isBelowBreakLength(ctx, output, start, base) {
  if (ctx.breakLength === Infinity) {
    if (base !== '' && base.includes('\n')) return false;
    for (let i = 0; i < output.length; i++) if (/** @type {string} */ (output[i]).includes('\n')) return false;
    return true;
  }
  let totalLength = output.length + start;
  if (totalLength + output.length > ctx.breakLength) return false;
  for (let i = 0; i < output.length; i++) {
    totalLength += /** @type {string} */ (output[i]).length;
    if (totalLength > ctx.breakLength) return false;
  }
  return base === '' || !base.includes('\n');
}

/**
 * @param {InspectContext} ctx
 * @param {string[]} output
 * @param {string} base
 * @param {[string, string]} braces
 * @param {number} extrasType
 * @param {number} recurseTimes
 * @param {any} value
 */
export function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
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
