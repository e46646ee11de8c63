// @ts-check
// In-isolate `util.inspect`, the pieces formatRaw delegates to for boxed
// primitives, functions and classes, and errors (stack, name and cause), following
// Node's lib/internal/util/inspect.js.

import {
  AsyncFunctionProto, AsyncGeneratorFunctionProto, GeneratorFunctionProto, getPrefix, hasOwn, objToString,
} from './inspect-types.js';
import { formatValue, inspect } from './inspect-value.js';
import { classRe, formatPrimitive, stripCommentsRe } from './inspect.js';

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
