// @ts-check
// In-isolate `util.inspect`, the pieces formatRaw delegates to: boxed primitives,
// functions and classes, errors, arrays/typed arrays/maps/sets, properties, array
// grouping and line breaking, following Node's lib/internal/util/inspect.js.

import {
  AsyncFunctionProto, AsyncGeneratorFunctionProto, GeneratorFunctionProto, getPrefix, hasOwn, mapSizeGetter,
  objToString, setSizeGetter,
} from './inspect-types.js';
import {
  classRe, escapeFn, formatBigInt, formatNumber, formatPrimitive, formatValue, getStringWidth, inspect,
  kArrayExtrasType, kArrayType, keyStrRe, kObjectType, numberRe, strEscape, strEscapeReG, stripCommentsRe,
} from './inspect.js';

/** @typedef {import('./inspect.js').InspectContext} InspectContext */

/**
 * @param {any} value
 * @param {InspectContext} ctx
 * @param {Array<string | symbol>} keys
 * @param {string | null} constructor
 * @param {string} tag
 * @param {string} type
 */
export function getBoxedBase(value, ctx, keys, constructor, tag, type) {
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

/**
 * @param {any} value
 * @param {string | null} constructor
 * @param {string} tag
 */
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

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {string | null} constructor
 * @param {string} tag
 */
export function getFunctionBase(ctx, value, constructor, tag) {
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

/** @param {any} error */
function getStackString(error) {
  let stack;
  try { stack = error.stack; } catch {}
  if (stack) {
    if (typeof stack === 'string') return stack;
    return Error.prototype.toString.call(error) + '\n    ' + inspect(stack);
  }
  return Error.prototype.toString.call(error);
}

/**
 * @param {string} stack
 * @param {string | null} constructor
 * @param {any} name
 * @param {string} tag
 */
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

/**
 * @param {any} err
 * @param {string | null} constructor
 * @param {string} tag
 * @param {InspectContext} ctx
 * @param {Array<string | symbol>} keys
 */
export function formatError(err, constructor, tag, ctx, keys) {
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

/**
 * @param {InspectContext} ctx
 * @param {any[]} output formatted entries (strings); typed loosely because the column
 *   arithmetic below indexes it heavily, always within bounds
 * @param {any} value
 * @returns {string[]}
 */
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

/** @param {number} remaining */
function remainingText(remaining) { return '... ' + remaining + ' more item' + (remaining > 1 ? 's' : ''); }

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {number} recurseTimes
 * @param {number} maxLength
 * @param {string[]} output
 * @param {number} i
 */
function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
  const keys = Object.keys(value);
  let index = i;
  for (; i < keys.length && output.length < maxLength; i++) {
    const key = /** @type {string} */ (keys[i]);
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

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {number} recurseTimes
 */
export function formatArray(ctx, value, recurseTimes) {
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

/**
 * @param {InspectContext} ctx
 * @param {any} value
 */
export function formatTypedArray(ctx, value) {
  const length = value.length;
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const remaining = length - maxLength;
  const output = new Array(maxLength);
  const fmt = length > 0 && typeof value[0] === 'number' ? formatNumber : formatBigInt;
  for (let i = 0; i < maxLength; ++i) output[i] = fmt(value[i]);
  if (remaining > 0) output[maxLength] = remainingText(remaining);
  return output;
}

/**
 * @param {InspectContext} ctx
 * @param {any} value
 */
export function formatArrayBuffer(ctx, value) {
  let buffer;
  try { buffer = new Uint8Array(value); } catch { return ['(detached)']; }
  const n = Math.min(ctx.maxArrayLength, buffer.length);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(/** @type {number} */ (buffer[i]).toString(16).padStart(2, '0'));
  let str = parts.join(' ');
  const remaining = buffer.length - ctx.maxArrayLength;
  if (remaining > 0) str += ' ... ' + remaining + ' more byte' + (remaining > 1 ? 's' : '');
  return ['[Uint8Contents]: <' + str + '>'];
}

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {number} recurseTimes
 */
export function formatSet(ctx, value, recurseTimes) {
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

/**
 * @param {InspectContext} ctx
 * @param {any} value
 * @param {number} recurseTimes
 */
export function formatMap(ctx, value, recurseTimes) {
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

