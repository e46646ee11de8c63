// @ts-check
// In-isolate `util.inspect`, the entries of arrays, typed arrays, ArrayBuffers, sets
// and maps, with Node's grouping of short array items into aligned columns.

import { formatProperty } from './inspect-layout.js';
import { mapSizeGetter, setSizeGetter } from './inspect-types.js';
import { formatValue } from './inspect-value.js';
import { formatBigInt, formatNumber, getStringWidth, kArrayType, numberRe } from './inspect.js';

/** @typedef {import('./inspect.js').InspectContext} InspectContext */

/**
 * @param {InspectContext} ctx
 * @param {any[]} output formatted entries (strings); typed loosely because the column
 *   arithmetic below indexes it heavily, always within bounds
 * @param {any} value
 * @returns {string[]}
 */
export function groupArrayElements(ctx, output, value) {
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
