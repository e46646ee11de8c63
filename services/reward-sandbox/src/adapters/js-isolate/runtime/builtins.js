// @ts-check
// In-isolate runtime, part 4: `util`, the table of builtin modules (fs, readline,
// events, util, assert, os, timers) and `require` for them; see modules.ts for the
// advertised list.

import { makeAssert } from './assert.js';
import { makeFs } from './builtins-fs.js';
import { makeReadline } from './builtins-readline.js';
import { isDeepStrictEqual } from './compare-objects.js';
import { EventEmitter } from './events.js';
import { format, formatWithOptions } from './format.js';
import { inspect } from './inspect-value.js';
import { cfg, describeReceived, makeNodeError } from './io.js';
import { clearImmediate, clearTimeout, restArgs, setImmediateImpl, setIntervalImpl, setTimeoutImpl } from './loop.js';
import { argsOf, processObject } from './process.js';

/** @typedef {import('./builtins-fs.js').NodeError} NodeError */

/** @param {any} original */
function promisify(original) {
  if (typeof original !== 'function') {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "original" argument must be of type function. Received ' + describeReceived(original));
  }
  const custom = original[promisify.custom];
  if (typeof custom === 'function') return custom;
  /** @this {unknown} */
  const fn = function () {
    const args = argsOf(arguments);
    const self = this;
    return new Promise(function (resolve, reject) {
      args.push(function (/** @type {unknown} */ err, /** @type {unknown} */ value) { if (err) reject(err); else resolve(value); });
      original.apply(self, args);
    });
  };
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  return fn;
}
promisify.custom = Symbol.for('nodejs.util.promisify.custom');

function makeUtil() {
  return {
    format: format,
    /** @param {any} opts */
    formatWithOptions: function (opts) { return formatWithOptions(opts, restArgs(arguments, 1)); },
    inspect: inspect,
    isDeepStrictEqual: isDeepStrictEqual,
    promisify: promisify,
    /**
     * @param {Function} ctor
     * @param {Function} superCtor
     */
    inherits: function inherits(ctor, superCtor) {
      Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
      Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
    },
    /** @param {Function} fn */
    deprecate: function deprecate(fn) { return fn; },
  };
}

/** @type {Record<string, () => any>} module name -> factory, run on first require */
const builtinFactories = {
  fs: makeFs,
  readline: function () { return makeReadline(false); },
  'readline/promises': function () { return makeReadline(true); },
  events: function () { return EventEmitter; },
  util: makeUtil,
  assert: function () { const a = makeAssert(false); a.strict = requireBuiltin('assert/strict'); return a; },
  'assert/strict': function () { const a = makeAssert(true); a.strict = a; return a; },
  process: function () { return processObject; },
  os: function () {
    return {
      EOL: '\n',
      platform: function () { return 'linux'; },
      arch: function () { return 'x64'; },
      type: function () { return 'Linux'; },
      endianness: function () { return 'LE'; },
      tmpdir: function () { return '/tmp'; },
    };
  },
  timers: function () {
    return { setTimeout: setTimeoutImpl, setInterval: setIntervalImpl, setImmediate: setImmediateImpl,
      clearTimeout: clearTimeout, clearInterval: clearTimeout, clearImmediate: clearImmediate };
  },
  'timers/promises': function () {
    return {
      /**
       * @param {number} ms
       * @param {any} value
       */
      setTimeout: function (ms, value) { return new Promise(function (r) { setTimeoutImpl(r, ms, value); }); },
      /** @param {any} value */
      setImmediate: function (value) { return new Promise(function (r) { setImmediateImpl(r, value); }); },
    };
  },
};
const builtinCache = new Map();

/** @param {any} id */
export function requireBuiltin(id) {
  if (typeof id !== 'string') {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "id" argument must be of type string. Received ' + describeReceived(id));
  }
  if (id === '') throw makeNodeError(TypeError, 'ERR_INVALID_ARG_VALUE', "The argument 'id' must be a non-empty string. Received ''");
  const name = id.startsWith('node:') ? id.slice(5) : id;
  if (builtinCache.has(name)) return builtinCache.get(name);
  const factory = Object.prototype.hasOwnProperty.call(builtinFactories, name) ? builtinFactories[name] : undefined;
  if (factory === undefined) {
    const err = /** @type {NodeError} */ (new Error("Cannot find module '" + id + "'\nRequire stack:\n- " + cfg.filename));
    err.code = 'MODULE_NOT_FOUND';
    err.requireStack = [cfg.filename];
    throw err;
  }
  const value = factory();
  builtinCache.set(name, value);
  return value;
}
