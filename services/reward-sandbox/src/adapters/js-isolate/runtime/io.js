// @ts-check
// In-isolate runtime, part 1: shared state and output buffering (the only host
// callbacks the isolate ever sees take strings/numbers: write and exit), UTF-8
// helpers with a minimal Buffer stand-in, and EventEmitter.

import { customInspectSymbol, inspect } from './inspect.js';

/** The isolate's global object, also used to hold the host hooks (symbol keys). */
export const G = /** @type {typeof globalThis & Record<PropertyKey, any>} */ (globalThis);
export const MAIN_HOOK = Symbol.for('sandbox.main');
export const REQUIRE_HOOK = Symbol.for('sandbox.require');
const FLUSH_BYTES = 65536;
const FLUSH_MS = 50;

/**
 * Per-run configuration, JSON from the host (worker/execution.ts builds it).
 * @typedef {object} RunConfig
 * @property {string} filename
 * @property {string} dirname
 * @property {string} version
 * @property {number} budgetMs
 * @property {string} source
 * @property {number} outputCap
 * @property {boolean} [cjsGlobals]
 */

// The two host callbacks (ivm.Callback): write(fd, text) returns false once the
// stream is full; exit(code) disposes the isolate. Both are set by ctl('start')
// before any program code runs.
/** @type {((fd: number, text: string) => unknown) | null} */
let hostWrite = null;
/** @type {((code: number | undefined) => void) | null} */
export let hostExit = null;
/** @type {RunConfig} */
export let cfg = { filename: '/sandbox/main.js', dirname: '/sandbox', version: 'v24.0.0', budgetMs: 10000, source: '', outputCap: 1048576 };
export let startReal = Date.now();
export let stdinText = '';

// ---- output ---------------------------------------------------------------------

/** @type {[string, string]} */
export const pendingOut = ['', ''];
/** @type {[boolean, boolean]} */
const streamFull = [false, false];
let pendingLen = 0;
let writesSinceCheck = 0;
let lastFlush = Date.now();
export let dead = false;
/** @type {number | undefined} */
export let exitCodeValue;

// Writers for the state above: other runtime files import these bindings, and an
// imported binding is read-only (in the assembled script they are plain shared variables).
/**
 * Per-run values the host passes to ctl('start').
 * @param {any} stdin
 * @param {any} write
 * @param {any} exit
 * @param {string} configJson
 */
export function startRun(stdin, write, exit, configJson) {
  stdinText = typeof stdin === 'string' ? stdin : '';
  hostWrite = write;
  hostExit = exit;
  cfg = JSON.parse(configJson);
  startReal = Date.now();
  lastFlush = startReal;
}
/** @param {any} code */
export function setExitCode(code) { exitCodeValue = code; }
export function markDead() { dead = true; }
/** Forgets output written by the warm-up run. */
export function resetOutput() {
  pendingOut[0] = '';
  sentChars[0] = 0;
  pendingLen = 0;
  writesSinceCheck = 0;
}

export function flushOutput() {
  for (let i = 0; i < 2; i++) {
    const s = /** @type {string} */ (pendingOut[i]);
    if (s !== '') {
      pendingOut[i] = '';
      // Only an explicit "full" stops the stream: the host sink enforces the cap either way.
      if (hostWrite !== null && hostWrite(i + 1, s) === false) streamFull[i] = true;
    }
  }
  pendingLen = 0;
  lastFlush = Date.now();
}

/** @type {[number, number]} */
const sentChars = [0, 0];
/**
 * @param {number} fd
 * @param {string} s
 */
export function rawWrite(fd, s) {
  if (dead) return;
  const i = fd === 2 ? 1 : 0;
  if (streamFull[i]) return;
  // A UTF-8 byte per UTF-16 unit at least: past the cap in units means past it in
  // bytes, so floods are cut here instead of being copied to the host (one unit
  // more than fits is kept so that the host sees, and reports, the overflow).
  const room = cfg.outputCap - sentChars[i];
  if (s.length > room) {
    s = s.slice(0, Math.max(0, room) + 1);
    streamFull[i] = true;
  }
  sentChars[i] += s.length;
  pendingOut[i] += s;
  pendingLen += s.length;
  if (pendingLen >= FLUSH_BYTES) {
    flushOutput();
  } else if (++writesSinceCheck >= 256) {
    // Time-based flushing keeps partial output visible if the run later times out.
    writesSinceCheck = 0;
    if (Date.now() - lastFlush >= FLUSH_MS) flushOutput();
  }
}

export function finalTuple() {
  const out = [exitCodeValue === undefined ? 0 : exitCodeValue, pendingOut[0], pendingOut[1]];
  pendingOut[0] = '';
  pendingOut[1] = '';
  dead = true;
  return out;
}

/**
 * @param {any} chunk
 * @param {any} encoding
 */
export function chunkToString(chunk, encoding) {
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof SandboxBuffer) return chunk.toString(encoding);
  if (ArrayBuffer.isView(chunk)) return utf8Decode(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength), 0, chunk.byteLength);
  throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "chunk" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ' + describeReceived(chunk));
}

/** @param {any} v */
export function describeReceived(v) {
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'function') return 'function ' + (v.name || '(anonymous)');
  if (typeof v === 'object') {
    if (v.constructor && v.constructor.name) return 'an instance of ' + v.constructor.name;
    return inspect(v, { depth: -1 });
  }
  let shown = inspect(v, { colors: false });
  if (shown.length > 28) shown = shown.slice(0, 25) + '...';
  return 'type ' + typeof v + ' (' + shown + ')';
}

/**
 * @param {ErrorConstructor} Ctor
 * @param {any} code
 * @param {any} message
 */
export function makeNodeError(Ctor, code, message) {
  const err = /** @type {Error & { code?: unknown }} */ (new Ctor(message));
  Object.defineProperty(err, 'name', { value: Ctor.name + ' [' + code + ']', configurable: true, writable: true, enumerable: false });
  err.stack;
  delete /** @type {{ name?: string }} */ (err).name;
  err.code = code;
  return err;
}

// ---- utf-8 and a minimal Buffer stand-in --------------------------------------

/** @param {string} str */
function utf8Encode(str) {
  const n = str.length;
  let ascii = true;
  for (let i = 0; i < n; i++) if (str.charCodeAt(i) > 127) { ascii = false; break; }
  if (ascii) {
    const out = new SandboxBuffer(n);
    for (let i = 0; i < n; i++) out[i] = str.charCodeAt(i);
    return out;
  }
  const bytes = [];
  for (let i = 0; i < n; i++) {
    let c = str.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = str.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
      else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      c = 0xfffd;
    }
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  const out = new SandboxBuffer(bytes.length);
  out.set(bytes);
  return out;
}

/**
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 */
export function utf8Decode(bytes, start, end) {
  let out = '';
  const units = [];
  for (let i = start; i < end;) {
    const b = /** @type {number} */ (bytes[i]);
    let cp = 0xfffd, need = 0;
    if (b < 0x80) { cp = b; need = 0; }
    else if (b >= 0xc2 && b < 0xe0) { cp = b & 31; need = 1; }
    else if (b >= 0xe0 && b < 0xf0) { cp = b & 15; need = 2; }
    else if (b >= 0xf0 && b < 0xf5) { cp = b & 7; need = 3; }
    else { need = -1; }
    i++;
    if (need > 0) {
      let ok = true;
      for (let k = 0; k < need; k++) {
        if (i >= end || (/** @type {number} */ (bytes[i]) & 0xc0) !== 0x80) { ok = false; break; }
        cp = (cp << 6) | (/** @type {number} */ (bytes[i]) & 63);
        i++;
      }
      if (!ok || (need === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (need === 3 && (cp < 0x10000 || cp > 0x10ffff))) cp = 0xfffd;
    } else if (need < 0) {
      cp = 0xfffd;
    }
    if (cp >= 0x10000) { cp -= 0x10000; units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 1023)); }
    else units.push(cp);
    if (units.length >= 8192) { out += String.fromCharCode.apply(null, units); units.length = 0; }
  }
  if (units.length) out += String.fromCharCode.apply(null, units);
  return out;
}

/** @typedef {SandboxBuffer & { _text?: string }} TextBuffer (Buffer.from(string) keeps its source text) */
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
export class SandboxBuffer extends Uint8Array {
  /**
   * @override
   * @param {any} [encoding]
   * @param {number} [start]
   * @param {number} [end]
   */
  toString(encoding, start, end) {
    start = start === undefined ? 0 : Math.max(0, start | 0);
    end = end === undefined ? this.length : Math.min(this.length, end | 0);
    const enc = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
    if (end <= start) return '';
    if (enc === 'utf8' || enc === 'utf-8') {
      if (start === 0 && end === this.length && typeof /** @type {TextBuffer} */ (this)._text === 'string') return /** @type {string} */ (/** @type {TextBuffer} */ (this)._text);
      return utf8Decode(this, start, end);
    }
    if (enc === 'latin1' || enc === 'binary' || enc === 'ascii') {
      let s = '';
      for (let i = start; i < end; i++) s += String.fromCharCode(enc === 'ascii' ? /** @type {number} */ (this[i]) & 0x7f : /** @type {number} */ (this[i]));
      return s;
    }
    if (enc === 'hex') {
      let s = '';
      for (let i = start; i < end; i++) s += (/** @type {number} */ (this[i]) < 16 ? '0' : '') + /** @type {number} */ (this[i]).toString(16);
      return s;
    }
    if (enc === 'base64') {
      let s = '';
      for (let i = start; i < end; i += 3) {
        // (casts: indices are in bounds, which noUncheckedIndexedAccess cannot see)
        const n = (/** @type {number} */ (this[i]) << 16) |
          ((i + 1 < end ? /** @type {number} */ (this[i + 1]) : 0) << 8) |
          (i + 2 < end ? /** @type {number} */ (this[i + 2]) : 0);
        s += /** @type {string} */ (B64[(n >> 18) & 63]) + /** @type {string} */ (B64[(n >> 12) & 63]) +
          (i + 1 < end ? /** @type {string} */ (B64[(n >> 6) & 63]) : '=') + (i + 2 < end ? /** @type {string} */ (B64[n & 63]) : '=');
      }
      return s;
    }
    throw makeNodeError(TypeError, 'ERR_UNKNOWN_ENCODING', 'Unknown encoding: ' + encoding);
  }
  toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
  /** @param {any} other */
  equals(other) { if (other.length !== this.length) return false; for (let i = 0; i < this.length; i++) if (this[i] !== other[i]) return false; return true; }
  [customInspectSymbol]() {
    const n = Math.min(50, this.length);
    let s = '<Buffer';
    for (let i = 0; i < n; i++) s += ' ' + (/** @type {number} */ (this[i]) < 16 ? '0' : '') + /** @type {number} */ (this[i]).toString(16);
    if (this.length > 50) s += ' ... ' + (this.length - 50) + ' more byte' + (this.length - 50 > 1 ? 's' : '');
    return s + '>';
  }
}
Object.defineProperty(SandboxBuffer, 'name', { value: 'Buffer' });
Object.defineProperty(SandboxBuffer.prototype, Symbol.toStringTag, { value: 'Uint8Array', configurable: true });

/** @param {string} text */
export function bufferFromText(text) {
  const buf = utf8Encode(text);
  Object.defineProperty(buf, '_text', { value: text, enumerable: false });
  return buf;
}

/**
 * @param {string} text
 * @param {any} encoding
 */
export function decodeAs(text, encoding) {
  if (encoding === undefined || encoding === null) return bufferFromText(text);
  const enc = String(encoding).toLowerCase();
  if (enc === 'utf8' || enc === 'utf-8') return text;
  return bufferFromText(text).toString(enc);
}

// ---- events -------------------------------------------------------------------

export class EventEmitter {
  constructor() { this._events = Object.create(null); this._maxListeners = undefined; }
  /** @param {any} name */
  _list(name) {
    if (!this._events) this._events = Object.create(null);
    return this._events[name] || (this._events[name] = []);
  }
  /**
   * @param {any} name
   * @param {Function} listener
   * @param {boolean} prepend
   * @param {boolean} once
   */
  _add(name, listener, prepend, once) {
    if (typeof listener !== 'function') {
      throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "listener" argument must be of type function. Received ' + describeReceived(listener));
    }
    if (this._events && this._events.newListener) this.emit('newListener', name, listener);
    const entry = { fn: listener, once: once };
    const list = this._list(name);
    if (prepend) list.unshift(entry); else list.push(entry);
    this._onAdd(name);
    return this;
  }
  /** @param {unknown} _name the event name (ReadStream starts reading on a data listener) */
  _onAdd(_name) {}
  /**
   * @param {any} name
   * @param {Function} listener
   */
  on(name, listener) { return this._add(name, listener, false, false); }
  /**
   * @param {any} name
   * @param {Function} listener
   */
  addListener(name, listener) { return this._add(name, listener, false, false); }
  /**
   * @param {any} name
   * @param {Function} listener
   */
  prependListener(name, listener) { return this._add(name, listener, true, false); }
  /**
   * @param {any} name
   * @param {Function} listener
   */
  once(name, listener) { return this._add(name, listener, false, true); }
  /**
   * @param {any} name
   * @param {Function} listener
   */
  prependOnceListener(name, listener) { return this._add(name, listener, true, true); }
  /**
   * @param {any} name
   * @param {Function} listener
   */
  off(name, listener) { return this.removeListener(name, listener); }
  /**
   * @param {any} name
   * @param {Function} listener
   */
  removeListener(name, listener) {
    const list = this._events && this._events[name];
    if (!list) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i].fn === listener) {
        list.splice(i, 1);
        if (this._events.removeListener) this.emit('removeListener', name, listener);
        break;
      }
    }
    return this;
  }
  /** @param {any} name */
  removeAllListeners(name) {
    if (!this._events) return this;
    if (name === undefined) this._events = Object.create(null); else delete this._events[name];
    return this;
  }
  /** @param {any} name */
  emit(name) {
    const list = this._events && this._events[name];
    if (!list || list.length === 0) {
      if (name === 'error') {
        const er = arguments[1];
        if (er instanceof Error) throw er;
        throw makeNodeError(Error, 'ERR_UNHANDLED_ERROR', 'Unhandled error. (' + inspect(er) + ')');
      }
      return false;
    }
    const args = [];
    for (let i = 1; i < arguments.length; i++) args.push(arguments[i]);
    const snapshot = list.slice();
    for (let i = 0; i < snapshot.length; i++) {
      const entry = snapshot[i];
      if (entry.once) {
        const idx = list.indexOf(entry);
        if (idx !== -1) list.splice(idx, 1);
      }
      entry.fn.apply(this, args);
    }
    return true;
  }
  /** @param {any} name */
  listeners(name) { const l = this._events && this._events[name]; return l ? l.map(function (/** @type {any} */ e) { return e.fn; }) : []; }
  /** @param {any} name */
  rawListeners(name) { return this.listeners(name); }
  /** @param {any} name */
  listenerCount(name) { const l = this._events && this._events[name]; return l ? l.length : 0; }
  eventNames() { return this._events ? Reflect.ownKeys(this._events).filter((k) => this._events[k].length > 0) : []; }
  /** @param {number} n */
  setMaxListeners(n) { this._maxListeners = n; return this; }
  getMaxListeners() { return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners; }
}
EventEmitter.defaultMaxListeners = 10;
EventEmitter.EventEmitter = EventEmitter;
/**
 * @param {any} emitter
 * @param {any} name
 */
EventEmitter.once = function once(emitter, name) {
  return new Promise(function (resolve, reject) {
    /** @param {any} err */
    const onError = function (err) { emitter.removeListener(name, onEvent); reject(err); };
    const onEvent = function () {
      if (name !== 'error') emitter.removeListener('error', onError);
      resolve(Array.prototype.slice.call(arguments));
    };
    emitter.once(name, onEvent);
    if (name !== 'error') emitter.once('error', onError);
  });
};

