// @ts-check
// In-isolate runtime, part 4: the builtin modules (fs, readline, events, util,
// assert, os, timers) and `require` for them; see modules.ts for the advertised list.

import { makeAssert } from './assert.js';
import { isDeepStrictEqual } from './compare.js';
import { format, formatWithOptions } from './format.js';
import { inspect } from './inspect.js';
import {
  cfg, chunkToString, decodeAs, describeReceived, EventEmitter, makeNodeError, rawWrite, SandboxBuffer,
  utf8Decode,
} from './io.js';
import {
  clearImmediate, clearTimeout, restArgs, setImmediateImpl, setIntervalImpl, setTimeoutImpl, stdinHub,
  takeStdin,
} from './loop.js';
import { argsOf, processObject, stdinStream } from './process.js';

// ---- builtin modules ----------------------------------------------------------------

/** @typedef {Error & Record<string, unknown>} NodeError an Error carrying Node's errno/code/syscall fields */

/**
 * @param {string} syscall
 * @param {any} path
 */
function enoent(syscall, path) {
  const err = /** @type {NodeError} */ (new Error('ENOENT: no such file or directory, ' + syscall + " '" + path + "'"));
  err.errno = -2;
  err.code = 'ENOENT';
  err.syscall = syscall;
  err.path = path;
  return err;
}
/** @param {any} p */
function isStdinPath(p) { return p === 0 || p === '/dev/stdin' || p === '/proc/self/fd/0' || p === '/dev/fd/0'; }
/** @param {any} p */
function stdFd(p) {
  if (p === 1 || p === '/dev/stdout' || p === '/proc/self/fd/1' || p === '/dev/fd/1') return 1;
  if (p === 2 || p === '/dev/stderr' || p === '/proc/self/fd/2' || p === '/dev/fd/2') return 2;
  return 0;
}
/** @param {any} options */
function encodingOf(options) {
  if (typeof options === 'string') return options;
  if (options && typeof options === 'object') return options.encoding;
  return undefined;
}
/** @param {any} p */
function normPath(p) {
  if (typeof p !== 'string') {
    if (p instanceof SandboxBuffer) return p.toString();
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "path" argument must be of type string or an instance of Buffer or URL. Received ' + describeReceived(p));
  }
  const abs = p.startsWith('/') ? p : cfg.dirname + '/' + p;
  const parts = [];
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop(); else parts.push(seg);
  }
  return '/' + parts.join('/');
}

function makeFs() {
  // Files the program writes live only in memory for this run: the isolate has no filesystem.
  const files = new Map();
  /**
   * @param {any} data
   * @param {any} options
   */
  function dataString(data, options) {
    if (typeof data === 'string') return data;
    if (ArrayBuffer.isView(data)) return chunkToString(data, encodingOf(options));
    return String(data);
  }
  return {
    /**
     * @param {any} path
     * @param {any} options
     */
    readFileSync: function readFileSync(path, options) {
      const enc = encodingOf(options);
      if (isStdinPath(path)) {
        const text = takeStdin();
        return decodeAs(text, enc);
      }
      const key = typeof path === 'number' ? null : normPath(path);
      if (key === null || !files.has(key)) {
        if (typeof path === 'number') {
          const err = /** @type {NodeError} */ (new Error('EBADF: bad file descriptor, read'));
          err.errno = -9; err.code = 'EBADF'; err.syscall = 'read';
          throw err;
        }
        throw enoent('open', path);
      }
      return decodeAs(files.get(key), enc);
    },
    /**
     * @param {any} path
     * @param {any} data
     * @param {any} options
     */
    writeFileSync: function writeFileSync(path, data, options) {
      const fd = stdFd(path);
      if (fd !== 0) { rawWrite(fd, dataString(data, options)); return; }
      files.set(normPath(path), dataString(data, options));
    },
    /**
     * @param {any} path
     * @param {any} data
     * @param {any} options
     */
    appendFileSync: function appendFileSync(path, data, options) {
      const fd = stdFd(path);
      if (fd !== 0) { rawWrite(fd, dataString(data, options)); return; }
      const key = normPath(path);
      files.set(key, (files.get(key) || '') + dataString(data, options));
    },
    /** @param {any} path */
    existsSync: function existsSync(path) {
      if (isStdinPath(path) || stdFd(path) !== 0) return true;
      try { return files.has(normPath(path)) || normPath(path) === cfg.filename; } catch { return false; }
    },
    /**
     * @param {number} fd
     * @param {any} data
     * @param {any} a
     * @param {any} b
     */
    writeSync: function writeSync(fd, data, a, b) {
      const target = stdFd(fd);
      if (target === 0) {
        const err = /** @type {NodeError} */ (new Error('EBADF: bad file descriptor, write'));
        err.errno = -9; err.code = 'EBADF'; err.syscall = 'write';
        throw err;
      }
      let s;
      if (typeof data === 'string') s = data;
      else if (ArrayBuffer.isView(data)) {
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        const off = typeof a === 'number' ? a : 0;
        const len = typeof b === 'number' ? b : bytes.length - off;
        s = utf8Decode(bytes, off, off + len);
      } else s = String(data);
      rawWrite(target, s);
      return s.length;
    },
  };
}

class Interface extends EventEmitter {
  /**
   * @param {any} input
   * @param {string[]} output
   * @param {any} _completer unused (no terminal)
   * @param {any} terminal
   * @param {any} [promises]
   */
  constructor(input, output, _completer, terminal, promises) {
    super();
    let opts = input;
    if (!(input && typeof input === 'object' && 'input' in input)) opts = { input: input, output: output, terminal: terminal };
    this.input = opts.input;
    this.output = opts.output;
    this.terminal = !!opts.terminal;
    this.line = '';
    this.cursor = 0;
    this.closed = false;
    this._prompt = opts.prompt === undefined ? '> ' : String(opts.prompt);
    /** @type {Function[]} question callbacks waiting for a line */
    this._questions = [];
    this._partial = '';
    /** @type {Array<{ push(line: string): void, end(): void }>} */
    this._iterators = [];
    this._promises = !!promises;
    const self = this;
    if (this.input === stdinStream) {
      stdinHub.subscribe({
        /** @param {string} text */
        onData(text) { self._onData(text); },
        onEnd() { self._onEnd(); },
      });
    } else if (this.input && typeof this.input.on === 'function') {
      this.input.on('data', function (/** @type {any} */ c) { self._onData(typeof c === 'string' ? c : String(c)); });
      this.input.on('end', function () { self._onEnd(); });
    }
  }
  /** @param {string} text */
  _onData(text) {
    if (this.closed) return;
    const all = this._partial + text;
    const parts = all.split(/\r\n|\n|\r/);
    this._partial = /** @type {string} */ (parts.pop());
    // A chunk ending in '\r' may be followed by '\n' in the next chunk; there is only one chunk here.
    for (let i = 0; i < parts.length; i++) {
      if (this.closed) return;
      this._onLine(/** @type {string} */ (parts[i]));
    }
  }
  _onEnd() {
    if (this.closed) return;
    if (this._partial.length > 0) { const l = this._partial; this._partial = ''; this._onLine(l); }
    this.close();
  }
  /** @param {string} line */
  _onLine(line) {
    if (this._questions.length > 0) {
      const cb = /** @type {Function} */ (this._questions.shift());
      cb(line);
      return;
    }
    for (const it of this._iterators) it.push(line);
    this.emit('line', line);
  }
  /** @param {string} s */
  _write(s) { if (this.output && typeof this.output.write === 'function') this.output.write(s); }
  close() {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
    for (const it of this._iterators) it.end();
  }
  pause() { this.emit('pause'); return this; }
  resume() { this.emit('resume'); return this; }
  /** @param {any} p */
  setPrompt(p) { this._prompt = String(p); }
  getPrompt() { return this._prompt; }
  prompt() { this._write(this._prompt); }
  /** @param {any} data */
  write(data) { if (!this.closed && typeof data === 'string') this._onData(data); }
  /**
   * @param {any} query
   * @param {any} options
   * @param {Function} cb
   */
  question(query, options, cb) {
    if (typeof options === 'function') { cb = options; options = undefined; }
    if (this.closed) throw makeNodeError(Error, 'ERR_USE_AFTER_CLOSE', 'readline was closed');
    if (this._promises) {
      const self = this;
      return new Promise(function (resolve) { self._questions.push(resolve); self._write(String(query)); });
    }
    if (typeof cb !== 'function') return;
    this._questions.push(cb);
    this._write(String(query));
  }
  [Symbol.asyncIterator]() {
    /** @type {string[]} */
    const queue = [];
    let done = this.closed;
    /** @type {((result: IteratorResult<string | undefined>) => void) | null} */
    let waiting = null;
    const sink = {
      /** @param {string} line */
      push(line) { if (waiting) { const w = waiting; waiting = null; w({ value: line, done: false }); } else queue.push(line); },
      end() { done = true; if (waiting) { const w = waiting; waiting = null; w({ value: undefined, done: true }); } },
    };
    this._iterators.push(sink);
    const self = this;
    return {
      next() {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise(function (resolve) { waiting = resolve; });
      },
      return() { self.close(); return Promise.resolve({ value: undefined, done: true }); },
      [Symbol.asyncIterator]() { return this; },
    };
  }
}

/** @param {any} promises */
function makeReadline(promises) {
  class PromisesInterface extends Interface {
    /**
     * @param {any} input
     * @param {string[]} output
     * @param {any} completer
     * @param {any} terminal
     */
    constructor(input, output, completer, terminal) { super(input, output, completer, terminal, true); }
  }
  const Ctor = promises ? PromisesInterface : Interface;
  Object.defineProperty(Ctor, 'name', { value: 'Interface' });
  return {
    Interface: Ctor,
    /**
     * @param {any} input
     * @param {string[]} output
     * @param {any} completer
     * @param {any} terminal
     */
    createInterface: function createInterface(input, output, completer, terminal) {
      return new Ctor(input, output, completer, terminal);
    },
  };
}

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

