// In-isolate source of the Node-like runtime: console, process, timers with a
// virtual-time event loop driven by the host, stdin (fs.readFileSync(0), process.stdin
// events, readline), a handful of builtin modules and the CommonJS entry hook.
// Everything here runs inside the isolate; the only host objects it ever sees are
// two callbacks taking strings/numbers (write, exit). Function-body fragment that
// uses the INSPECT_SOURCE and ASSERT_SOURCE names; it ends by returning `ctl`, the
// single entry point the host drives (start / step / die).
// Written without template literals so that it can live inside String.raw.

/** Source fragment defining the runtime and returning the control function. */
export const RUNTIME_SOURCE = String.raw`
const G = globalThis;
const MAIN_HOOK = Symbol.for('sandbox.main');
const REQUIRE_HOOK = Symbol.for('sandbox.require');
const FLUSH_BYTES = 65536;
const FLUSH_MS = 50;

let hostWrite = null;
let hostExit = null;
let cfg = { filename: '/sandbox/main.js', dirname: '/sandbox', version: 'v24.0.0', budgetMs: 10000, source: '', outputCap: 1048576 };
let sourceLines = null;
let startReal = Date.now();
let stdinText = '';

// ---- output ---------------------------------------------------------------------

const pendingOut = ['', ''];
const streamFull = [false, false];
let pendingLen = 0;
let writesSinceCheck = 0;
let lastFlush = Date.now();
let dead = false;
let exitCodeValue;

function flushOutput() {
  for (let i = 0; i < 2; i++) {
    const s = pendingOut[i];
    if (s !== '') {
      pendingOut[i] = '';
      if (hostWrite !== null && hostWrite(i + 1, s) !== true) streamFull[i] = true;
    }
  }
  pendingLen = 0;
  lastFlush = Date.now();
}

const sentChars = [0, 0];
function rawWrite(fd, s) {
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

function finalTuple() {
  const out = [exitCodeValue === undefined ? 0 : exitCodeValue, pendingOut[0], pendingOut[1]];
  pendingOut[0] = '';
  pendingOut[1] = '';
  dead = true;
  return out;
}

function chunkToString(chunk, encoding) {
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof SandboxBuffer) return chunk.toString(encoding);
  if (ArrayBuffer.isView(chunk)) return utf8Decode(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength), 0, chunk.byteLength);
  throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "chunk" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ' + describeReceived(chunk));
}

function describeReceived(v) {
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

function makeNodeError(Ctor, code, message) {
  const err = new Ctor(message);
  Object.defineProperty(err, 'name', { value: Ctor.name + ' [' + code + ']', configurable: true, writable: true, enumerable: false });
  err.stack;
  delete err.name;
  err.code = code;
  return err;
}

// ---- utf-8 and a minimal Buffer stand-in --------------------------------------

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

function utf8Decode(bytes, start, end) {
  let out = '';
  const units = [];
  for (let i = start; i < end;) {
    const b = bytes[i];
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
        if (i >= end || (bytes[i] & 0xc0) !== 0x80) { ok = false; break; }
        cp = (cp << 6) | (bytes[i] & 63);
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

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
class SandboxBuffer extends Uint8Array {
  toString(encoding, start, end) {
    start = start === undefined ? 0 : Math.max(0, start | 0);
    end = end === undefined ? this.length : Math.min(this.length, end | 0);
    const enc = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
    if (end <= start) return '';
    if (enc === 'utf8' || enc === 'utf-8') {
      if (start === 0 && end === this.length && typeof this._text === 'string') return this._text;
      return utf8Decode(this, start, end);
    }
    if (enc === 'latin1' || enc === 'binary' || enc === 'ascii') {
      let s = '';
      for (let i = start; i < end; i++) s += String.fromCharCode(enc === 'ascii' ? this[i] & 0x7f : this[i]);
      return s;
    }
    if (enc === 'hex') {
      let s = '';
      for (let i = start; i < end; i++) s += (this[i] < 16 ? '0' : '') + this[i].toString(16);
      return s;
    }
    if (enc === 'base64') {
      let s = '';
      for (let i = start; i < end; i += 3) {
        const n = (this[i] << 16) | ((i + 1 < end ? this[i + 1] : 0) << 8) | (i + 2 < end ? this[i + 2] : 0);
        s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < end ? B64[(n >> 6) & 63] : '=') + (i + 2 < end ? B64[n & 63] : '=');
      }
      return s;
    }
    throw makeNodeError(TypeError, 'ERR_UNKNOWN_ENCODING', 'Unknown encoding: ' + encoding);
  }
  toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
  equals(other) { if (other.length !== this.length) return false; for (let i = 0; i < this.length; i++) if (this[i] !== other[i]) return false; return true; }
  [customInspectSymbol]() {
    const n = Math.min(50, this.length);
    let s = '<Buffer';
    for (let i = 0; i < n; i++) s += ' ' + (this[i] < 16 ? '0' : '') + this[i].toString(16);
    if (this.length > 50) s += ' ... ' + (this.length - 50) + ' more byte' + (this.length - 50 > 1 ? 's' : '');
    return s + '>';
  }
}
Object.defineProperty(SandboxBuffer, 'name', { value: 'Buffer' });
Object.defineProperty(SandboxBuffer.prototype, Symbol.toStringTag, { value: 'Uint8Array', configurable: true });

function bufferFromText(text) {
  const buf = utf8Encode(text);
  Object.defineProperty(buf, '_text', { value: text, enumerable: false });
  return buf;
}

function decodeAs(text, encoding) {
  if (encoding === undefined || encoding === null) return bufferFromText(text);
  const enc = String(encoding).toLowerCase();
  if (enc === 'utf8' || enc === 'utf-8') return text;
  return bufferFromText(text).toString(enc);
}

// ---- events -------------------------------------------------------------------

class EventEmitter {
  constructor() { this._events = Object.create(null); this._maxListeners = undefined; }
  _list(name) {
    if (!this._events) this._events = Object.create(null);
    return this._events[name] || (this._events[name] = []);
  }
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
  _onAdd() {}
  on(name, listener) { return this._add(name, listener, false, false); }
  addListener(name, listener) { return this._add(name, listener, false, false); }
  prependListener(name, listener) { return this._add(name, listener, true, false); }
  once(name, listener) { return this._add(name, listener, false, true); }
  prependOnceListener(name, listener) { return this._add(name, listener, true, true); }
  off(name, listener) { return this.removeListener(name, listener); }
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
  removeAllListeners(name) {
    if (!this._events) return this;
    if (name === undefined) this._events = Object.create(null); else delete this._events[name];
    return this;
  }
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
  listeners(name) { const l = this._events && this._events[name]; return l ? l.map(function (e) { return e.fn; }) : []; }
  rawListeners(name) { return this.listeners(name); }
  listenerCount(name) { const l = this._events && this._events[name]; return l ? l.length : 0; }
  eventNames() { return this._events ? Reflect.ownKeys(this._events).filter((k) => this._events[k].length > 0) : []; }
  setMaxListeners(n) { this._maxListeners = n; return this; }
  getMaxListeners() { return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners; }
}
EventEmitter.defaultMaxListeners = 10;
EventEmitter.EventEmitter = EventEmitter;
EventEmitter.once = function once(emitter, name) {
  return new Promise(function (resolve, reject) {
    const onError = function (err) { emitter.removeListener(name, onEvent); reject(err); };
    const onEvent = function () {
      if (name !== 'error') emitter.removeListener('error', onError);
      resolve(Array.prototype.slice.call(arguments));
    };
    emitter.once(name, onEvent);
    if (name !== 'error') emitter.once('error', onError);
  });
};

// ---- timers and the virtual-time event loop -------------------------------------

// A libuv-shaped loop (timers phase, poll phase for stdin, check phase for
// setImmediate) whose clock is virtual: timers never sleep, the loop jumps to the
// next due time, and a jump past the run budget means the real program would have
// been killed by the time limit. The host drives exactly one macrotask per call so
// that V8 drains the microtask queue between callbacks, as Node does.
const timerHeap = [];
const pollQueue = [];
let immediateQueue = [];
let checkBatch = [];
let phase = 0; // 0 timers, 1 poll, 2 check
let loopStarted = false;
let seqCounter = 0;
let loopNow = 0; // cached loop time in ms since start, like uv_now()
let refCount = 0;
const timersById = new Map();
const tickQueue = [];
let tickDrainScheduled = false;

function realElapsed() { return Date.now() - startReal; }
function nowMs() {
  const real = realElapsed();
  return real > loopNow ? real : loopNow;
}
function less(a, b) { return a.time < b.time || (a.time === b.time && a.seq < b.seq); }
function heapPush(t) {
  timerHeap.push(t);
  let i = timerHeap.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!less(timerHeap[i], timerHeap[p])) break;
    const tmp = timerHeap[i]; timerHeap[i] = timerHeap[p]; timerHeap[p] = tmp;
    i = p;
  }
}
function heapPop() {
  const top = timerHeap[0];
  const last = timerHeap.pop();
  if (timerHeap.length > 0) {
    timerHeap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < timerHeap.length && less(timerHeap[l], timerHeap[m])) m = l;
      if (r < timerHeap.length && less(timerHeap[r], timerHeap[m])) m = r;
      if (m === i) break;
      const tmp = timerHeap[i]; timerHeap[i] = timerHeap[m]; timerHeap[m] = tmp;
      i = m;
    }
  }
  return top;
}
function activate(task) {
  if (!task.active) {
    task.active = true;
    if (task.refed) refCount++;
  }
}
function cancel(task) {
  if (task && task.active) {
    task.active = false;
    if (task.refed) refCount--;
  }
}
function scheduleTimer(task) {
  task.time = loopNow + task._delay;
  task.seq = ++seqCounter;
  activate(task);
  heapPush(task);
}
function setRef(task, on) {
  if (task.refed !== on) {
    task.refed = on;
    if (task.active) refCount += on ? 1 : -1;
  }
}

class Timeout {
  constructor(fn, args, delay, repeat) {
    this._fn = fn; this._args = args; this._delay = delay; this._repeat = repeat;
    this._id = ++seqCounter; this.active = false; this.refed = true; this.time = 0; this.seq = 0;
  }
  ref() { setRef(this, true); return this; }
  unref() { setRef(this, false); return this; }
  hasRef() { return this.refed; }
  refresh() { if (this.active) cancel(this); scheduleTimer(this); return this; }
  close() { clearTimeout(this); return this; }
  [Symbol.toPrimitive]() { return this._id; }
  _run() {
    if (this._repeat) { cancel(this); scheduleTimer(this); }
    else { cancel(this); timersById.delete(this._id); }
    this._fn.apply(undefined, this._args);
  }
}
class Immediate {
  constructor(fn, args) { this._fn = fn; this._args = args; this.active = false; this.refed = true; }
  ref() { setRef(this, true); return this; }
  unref() { setRef(this, false); return this; }
  hasRef() { return this.refed; }
  _run() { cancel(this); this._fn.apply(undefined, this._args); }
}

function checkCallback(fn) {
  if (typeof fn !== 'function') {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "callback" argument must be of type function. Received ' + describeReceived(fn));
  }
}
function normalizeDelay(delay) {
  delay = delay * 1;
  if (!(delay >= 1 && delay <= 2147483647)) delay = 1;
  return delay;
}
function restArgs(args, from) {
  const out = [];
  for (let i = from; i < args.length; i++) out.push(args[i]);
  return out;
}
function setTimeoutImpl(fn, delay) {
  checkCallback(fn);
  const t = new Timeout(fn, restArgs(arguments, 2), normalizeDelay(delay), false);
  timersById.set(t._id, t);
  scheduleTimer(t);
  return t;
}
function setIntervalImpl(fn, delay) {
  checkCallback(fn);
  const t = new Timeout(fn, restArgs(arguments, 2), normalizeDelay(delay), true);
  timersById.set(t._id, t);
  scheduleTimer(t);
  return t;
}
function setImmediateImpl(fn) {
  checkCallback(fn);
  const t = new Immediate(fn, restArgs(arguments, 1));
  activate(t);
  immediateQueue.push(t);
  return t;
}
function clearTimeout(t) {
  if (t === null || t === undefined) return;
  if (typeof t === 'number' || typeof t === 'string') t = timersById.get(Number(t));
  if (t instanceof Timeout) { cancel(t); timersById.delete(t._id); }
}
function clearImmediate(t) { if (t instanceof Immediate) cancel(t); }
setTimeoutImpl[Symbol.for('nodejs.util.promisify.custom')] = function (ms, value) {
  return new Promise(function (resolve) { setTimeoutImpl(resolve, ms, value); });
};
setImmediateImpl[Symbol.for('nodejs.util.promisify.custom')] = function (value) {
  return new Promise(function (resolve) { setImmediateImpl(resolve, value); });
};
Object.defineProperty(setTimeoutImpl, 'name', { value: 'setTimeout' });
Object.defineProperty(setIntervalImpl, 'name', { value: 'setInterval' });
Object.defineProperty(setImmediateImpl, 'name', { value: 'setImmediate' });

// An I/O callback (stdin delivery), run in the poll phase.
function queuePoll(fn) {
  const task = { _fn: fn, active: false, refed: true, _run: function () { cancel(this); this._fn(); } };
  activate(task);
  pollQueue.push(task);
}

function queueMicrotaskImpl(fn) {
  checkCallback(fn);
  Promise.resolve().then(function () {
    try { fn(); } catch (err) { fatal(err); }
  });
}

// process.nextTick callbacks run before promise jobs: the queue is drained right
// after the main script and after each macrotask, and from a promise job when a
// tick is queued while microtasks are already running.
function drainTicks() {
  while (tickQueue.length > 0 && !dead) {
    const entry = tickQueue.shift();
    try { entry.fn.apply(undefined, entry.args); } catch (err) { fatal(err); }
  }
}
function nextTick(fn) {
  checkCallback(fn);
  tickQueue.push({ fn: fn, args: restArgs(arguments, 1) });
  if (!tickDrainScheduled) {
    tickDrainScheduled = true;
    Promise.resolve().then(function () { tickDrainScheduled = false; drainTicks(); });
  }
}

function runTask(task) {
  try { task._run(); } catch (err) { fatal(err); }
  drainTicks();
}

// Runs exactly one macrotask in libuv phase order and returns 'ran'; returns 'idle'
// when nothing keeps the loop alive and 'tle' when the next task is due after the budget.
function runOneTask() {
  if (!loopStarted) {
    loopStarted = true;
    // Node's loop clock was read before the main script ran, so 1 ms timers are
    // normally already due on the first iteration.
    loopNow = Math.max(loopNow, realElapsed(), 1);
  }
  for (;;) {
    if (phase === 0) {
      while (timerHeap.length > 0 && !timerHeap[0].active) heapPop();
      if (timerHeap.length > 0 && timerHeap[0].time <= loopNow) { runTask(heapPop()); return 'ran'; }
      phase = 1;
    }
    if (phase === 1) {
      while (pollQueue.length > 0) {
        const task = pollQueue.shift();
        if (task.active) { runTask(task); return 'ran'; }
      }
      phase = 2;
      checkBatch = immediateQueue;
      immediateQueue = [];
    }
    while (checkBatch.length > 0) {
      const task = checkBatch.shift();
      if (task.active) { runTask(task); return 'ran'; }
    }
    phase = 0;
    if (refCount <= 0) return 'idle';
    const real = realElapsed();
    if (real > loopNow) loopNow = real;
    if (immediateQueue.length === 0 && pollQueue.length === 0) {
      while (timerHeap.length > 0 && !timerHeap[0].active) heapPop();
      if (timerHeap.length === 0) return 'idle';
      const next = timerHeap[0].time;
      if (next > loopNow) {
        if (next > cfg.budgetMs) return 'tle';
        loopNow = next;
      }
    }
  }
}

function loopAlive() {
  return refCount > 0;
}

// ---- stdin ----------------------------------------------------------------------

let stdinConsumed = false;
const stdinHub = {
  consumers: [],
  scheduled: false,
  subscribe(consumer) {
    this.consumers.push(consumer);
    if (this.scheduled) return;
    this.scheduled = true;
    const hub = this;
    // Node delivers piped stdin after the main script, data first and 'end' in a later turn.
    queuePoll(function () {
      const text = stdinConsumed ? '' : stdinText;
      stdinConsumed = true;
      if (text !== '') for (const c of hub.consumers.slice()) c.onData(text);
      queuePoll(function () {
        for (const c of hub.consumers.slice()) c.onEnd();
      });
    });
  },
};

class ReadStream extends EventEmitter {
  constructor() {
    super();
    this.fd = 0;
    this.readable = true;
    this.readableEnded = false;
    this._encoding = null;
    this._paused = true;
    this._subscribed = false;
    this._buffered = [];
    this._ended = false;
    this._readableMode = false;
  }
  _subscribe() {
    if (this._subscribed) return;
    this._subscribed = true;
    const self = this;
    stdinHub.subscribe({
      onData(text) { self._buffered.push(text); self._pump(); },
      onEnd() { self._ended = true; self._pump(); },
    });
  }
  _chunk(text) { return this._encoding ? text : bufferFromText(text); }
  _pump() {
    if (this._readableMode) {
      if (this._buffered.length > 0 || this._ended) this.emit('readable');
      if (this._ended && this._buffered.length === 0 && !this.readableEnded) this._finish();
      return;
    }
    if (this._paused) return;
    while (this._buffered.length > 0 && !this._paused) this.emit('data', this._chunk(this._buffered.shift()));
    if (this._ended && this._buffered.length === 0 && !this.readableEnded) this._finish();
  }
  _finish() {
    this.readableEnded = true;
    this.readable = false;
    this.emit('end');
    this.emit('close');
  }
  _onAdd(name) {
    if (name === 'data' && !this._readableMode) this.resume();
    else if (name === 'readable') { this._readableMode = true; this._subscribe(); }
  }
  setEncoding(enc) { this._encoding = enc === undefined ? 'utf8' : enc; return this; }
  resume() { this._paused = false; this._subscribe(); return this; }
  pause() { this._paused = true; return this; }
  isPaused() { return this._paused; }
  read() {
    if (this._buffered.length === 0) return null;
    const text = this._buffered.join('');
    this._buffered.length = 0;
    return this._chunk(text);
  }
  ref() { return this; }
  unref() { return this; }
  destroy() { this._buffered.length = 0; return this; }
  [Symbol.asyncIterator]() {
    const self = this;
    const queue = [];
    let done = false;
    let waiting = null;
    this._readableMode = false;
    this.on('data', function (chunk) { if (waiting) { const w = waiting; waiting = null; w({ value: chunk, done: false }); } else queue.push(chunk); });
    this.on('end', function () { done = true; if (waiting) { const w = waiting; waiting = null; w({ value: undefined, done: true }); } });
    return {
      next() {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise(function (resolve) { waiting = resolve; });
      },
      return() { done = true; self.pause(); return Promise.resolve({ value: undefined, done: true }); },
      [Symbol.asyncIterator]() { return this; },
    };
  }
}

class WriteStream extends EventEmitter {
  constructor(fd) { super(); this.fd = fd; this.writable = true; this._isStdio = true; }
  write(chunk, encoding, cb) {
    if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
    rawWrite(this.fd, chunkToString(chunk, encoding));
    if (typeof cb === 'function') nextTick(cb);
    return true;
  }
  end(chunk, encoding, cb) {
    if (typeof chunk === 'function') { cb = chunk; chunk = undefined; }
    if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
    if (typeof cb === 'function') nextTick(cb);
    return this;
  }
  cork() {}
  uncork() {}
  getWindowSize() { return [80, 24]; }
  hasColors() { return false; }
  getColorDepth() { return 1; }
}

// ---- console --------------------------------------------------------------------

let groupIndent = '';
const counts = new Map();
const timeLabels = new Map();
function consoleWrite(fd, args) {
  let s = args.length === 1 && typeof args[0] === 'string' ? args[0] : formatWithOptions(undefined, args);
  if (groupIndent.length !== 0) {
    if (s.includes('\n')) s = s.replace(/\n/g, '\n' + groupIndent);
    s = groupIndent + s;
  }
  rawWrite(fd, s + '\n');
}
function argsOf(a) { const out = new Array(a.length); for (let i = 0; i < a.length; i++) out[i] = a[i]; return out; }
function formatDuration(ms) {
  if (ms >= 1000) return (ms / 1000).toFixed(3) + 's';
  return ms.toFixed(3) + 'ms';
}
const consoleObject = {
  log: function log() { consoleWrite(1, argsOf(arguments)); },
  info: function info() { consoleWrite(1, argsOf(arguments)); },
  debug: function debug() { consoleWrite(1, argsOf(arguments)); },
  dirxml: function dirxml() { consoleWrite(1, argsOf(arguments)); },
  error: function error() { consoleWrite(2, argsOf(arguments)); },
  warn: function warn() { consoleWrite(2, argsOf(arguments)); },
  trace: function trace() {
    const err = { name: 'Trace', message: formatWithOptions(undefined, argsOf(arguments)) };
    Error.captureStackTrace(err, trace);
    consoleWrite(2, [err.stack]);
  },
  dir: function dir(obj, options) {
    rawWrite(1, inspect(obj, Object.assign({ customInspect: false }, options)) + '\n');
  },
  assert: function assert(expression) {
    if (!expression) {
      const args = restArgs(arguments, 1);
      args[0] = 'Assertion failed' + (args.length === 0 ? '' : ': ' + args[0]);
      consoleWrite(2, args);
    }
  },
  count: function count(label) {
    label = label === undefined ? 'default' : '' + label;
    const n = (counts.get(label) || 0) + 1;
    counts.set(label, n);
    consoleWrite(1, [label + ': ' + n]);
  },
  countReset: function countReset(label) { counts.delete(label === undefined ? 'default' : '' + label); },
  time: function time(label) { timeLabels.set(label === undefined ? 'default' : '' + label, Date.now()); },
  timeEnd: function timeEnd(label) {
    label = label === undefined ? 'default' : '' + label;
    const t = timeLabels.get(label);
    if (t === undefined) return;
    timeLabels.delete(label);
    consoleWrite(1, [label + ': ' + formatDuration(Date.now() - t)]);
  },
  timeLog: function timeLog(label) {
    label = label === undefined ? 'default' : '' + label;
    const t = timeLabels.get(label);
    if (t === undefined) return;
    const args = restArgs(arguments, 1);
    args.unshift(label + ': ' + formatDuration(Date.now() - t));
    consoleWrite(1, args);
  },
  group: function group() { if (arguments.length > 0) consoleWrite(1, argsOf(arguments)); groupIndent += '  '; },
  groupCollapsed: function groupCollapsed() { if (arguments.length > 0) consoleWrite(1, argsOf(arguments)); groupIndent += '  '; },
  groupEnd: function groupEnd() { groupIndent = groupIndent.slice(0, groupIndent.length - 2); },
};

// ---- process --------------------------------------------------------------------

const processObject = new EventEmitter();
const stdinStream = new ReadStream();
const stdoutStream = new WriteStream(1);
const stderrStream = new WriteStream(2);

function exitNow(code, stderrText) {
  if (dead) return;
  exitCodeValue = code;
  try { processObject.emit('exit', code); } catch {}
  if (stderrText) rawWrite(2, stderrText);
  flushOutput();
  dead = true;
  // The host disposes the isolate inside this call, which stops execution for good.
  hostExit(exitCodeValue);
  throw new Error('process exited');
}

function toExitCode(code) {
  if (code === undefined || code === null) return exitCodeValue === undefined ? 0 : exitCodeValue;
  const n = Number(code);
  if (!Number.isInteger(n)) {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "code" argument must be of type number. Received ' + describeReceived(code));
  }
  return n & 0xff;
}

function hrtime(prev) {
  const ms = Date.now();
  let sec = Math.floor(ms / 1000);
  let nsec = (ms % 1000) * 1e6;
  if (prev) {
    sec -= prev[0];
    nsec -= prev[1];
    if (nsec < 0) { sec--; nsec += 1e9; }
  }
  return [sec, nsec];
}
hrtime.bigint = function () { return BigInt(Date.now()) * 1000000n; };

// Static process properties are installed when the shim loads (at pool preparation);
// start() only fills in the per-run values.
(function defineProcess() {
  const p = processObject;
  p.title = 'node';
  p.argv = ['/usr/local/bin/node', cfg.filename];
  p.argv0 = 'node';
  p.execArgv = [];
  p.execPath = '/usr/local/bin/node';
  p.env = {};
  p.pid = 1;
  p.ppid = 0;
  p.platform = 'linux';
  p.arch = 'x64';
  p.version = cfg.version;
  p.versions = { node: cfg.version.slice(1) };
  p.release = { name: 'node' };
  p.stdin = stdinStream;
  p.stdout = stdoutStream;
  p.stderr = stderrStream;
  p.exit = function exit(code) { exitNow(toExitCode(code)); };
  p.nextTick = nextTick;
  p.hrtime = hrtime;
  p.uptime = function uptime() { return nowMs() / 1000; };
  p.cwd = function cwd() { return cfg.dirname; };
  p.emitWarning = function emitWarning(warning, type) {
    const name = typeof type === 'string' ? type : (warning && warning.name) || 'Warning';
    const msg = typeof warning === 'string' ? warning : (warning && warning.message);
    rawWrite(2, '(node:1) ' + name + ': ' + msg + '\n(Use ' + BACKTICK + 'node --trace-warnings ...' + BACKTICK + ' to show where the warning was created)\n');
  };
  Object.defineProperty(p, 'exitCode', {
    get() { return exitCodeValue; },
    set(v) { exitCodeValue = v === undefined || v === null ? undefined : toExitCode(v); },
    enumerable: true, configurable: false,
  });
})();

function configureProcess() {
  processObject.argv[1] = cfg.filename;
  processObject.version = cfg.version;
  processObject.versions.node = cfg.version.slice(1);
}

// ---- uncaught errors --------------------------------------------------------------

function frameLocation(stack) {
  if (typeof stack !== 'string') return null;
  const lines = stack.split('\n');
  const needle = cfg.filename + ':';
  for (let i = 0; i < lines.length; i++) {
    const idx = lines[i].indexOf(needle);
    if (idx === -1 || !/^\s+at /.test(lines[i])) continue;
    const m = /:(\d+):(\d+)\)?$/.exec(lines[i]);
    if (m) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return null;
}
function sourceLine(n) {
  if (sourceLines === null) sourceLines = cfg.source.split(/\r?\n/);
  return n >= 1 && n <= sourceLines.length ? sourceLines[n - 1] : null;
}
function uncaughtHeader(err) {
  let stack;
  try { stack = err.stack; } catch {}
  const loc = frameLocation(stack);
  if (loc === null) return '';
  const text = sourceLine(loc.line);
  if (text === null) return '';
  return cfg.filename + ':' + loc.line + '\n' + text + '\n' + ' '.repeat(Math.max(0, loc.column - 1)) + '^\n\n';
}
function formatUncaught(err) {
  const footer = '\n\nNode.js ' + cfg.version + '\n';
  if (isError(err)) return uncaughtHeader(err) + inspect(err) + footer;
  const shown = typeof err === 'string' ? err : inspect(err);
  const hint = typeof err !== 'object' || err === null ? '\n(Use ' + BACKTICK + 'node --trace-uncaught ...' + BACKTICK + ' to show where the exception was thrown)' : '';
  return '\n' + shown + hint + footer;
}
function fatal(err) {
  if (dead) return;
  if (processObject.listenerCount('uncaughtException') > 0) {
    try {
      processObject.emit('uncaughtException', err, 'uncaughtException');
      return;
    } catch (err2) {
      err = err2;
    }
  }
  let text;
  try { text = formatUncaught(err); } catch { text = 'Uncaught exception\n'; }
  exitNow(1, text);
}

// Extracts the source text of the call that invoked fn, for assert.ok's message.
function callSiteSource(fn) {
  const holder = {};
  Error.captureStackTrace(holder, fn);
  const loc = frameLocation(holder.stack);
  if (loc === null) return null;
  let text = sourceLine(loc.line);
  if (text === null) return null;
  let start = loc.column - 1;
  while (start > 0 && /[\w$.]/.test(text[start - 1])) start--;
  let depth = 0, seenParen = false, out = '';
  for (let ln = loc.line, first = true; ln < loc.line + 20; ln++, first = false) {
    const lineText = first ? text.slice(start) : sourceLine(ln);
    if (lineText === null) break;
    for (let i = 0; i < lineText.length; i++) {
      const ch = lineText[i];
      out += ch;
      if (ch === '(') { depth++; seenParen = true; }
      else if (ch === ')') { depth--; if (seenParen && depth === 0) return out; }
    }
    out += '\n';
  }
  return null;
}

// ---- builtin modules ----------------------------------------------------------------

function enoent(syscall, path) {
  const err = new Error('ENOENT: no such file or directory, ' + syscall + " '" + path + "'");
  err.errno = -2;
  err.code = 'ENOENT';
  err.syscall = syscall;
  err.path = path;
  return err;
}
function isStdinPath(p) { return p === 0 || p === '/dev/stdin' || p === '/proc/self/fd/0' || p === '/dev/fd/0'; }
function stdFd(p) {
  if (p === 1 || p === '/dev/stdout' || p === '/proc/self/fd/1' || p === '/dev/fd/1') return 1;
  if (p === 2 || p === '/dev/stderr' || p === '/proc/self/fd/2' || p === '/dev/fd/2') return 2;
  return 0;
}
function encodingOf(options) {
  if (typeof options === 'string') return options;
  if (options && typeof options === 'object') return options.encoding;
  return undefined;
}
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
  function dataString(data, options) {
    if (typeof data === 'string') return data;
    if (ArrayBuffer.isView(data)) return chunkToString(data, encodingOf(options));
    return String(data);
  }
  return {
    readFileSync: function readFileSync(path, options) {
      const enc = encodingOf(options);
      if (isStdinPath(path)) {
        const text = stdinConsumed ? '' : stdinText;
        stdinConsumed = true;
        return decodeAs(text, enc);
      }
      const key = typeof path === 'number' ? null : normPath(path);
      if (key === null || !files.has(key)) {
        if (typeof path === 'number') {
          const err = new Error('EBADF: bad file descriptor, read');
          err.errno = -9; err.code = 'EBADF'; err.syscall = 'read';
          throw err;
        }
        throw enoent('open', path);
      }
      return decodeAs(files.get(key), enc);
    },
    writeFileSync: function writeFileSync(path, data, options) {
      const fd = stdFd(path);
      if (fd !== 0) { rawWrite(fd, dataString(data, options)); return; }
      files.set(normPath(path), dataString(data, options));
    },
    appendFileSync: function appendFileSync(path, data, options) {
      const fd = stdFd(path);
      if (fd !== 0) { rawWrite(fd, dataString(data, options)); return; }
      const key = normPath(path);
      files.set(key, (files.get(key) || '') + dataString(data, options));
    },
    existsSync: function existsSync(path) {
      if (isStdinPath(path) || stdFd(path) !== 0) return true;
      try { return files.has(normPath(path)) || normPath(path) === cfg.filename; } catch { return false; }
    },
    writeSync: function writeSync(fd, data, a, b) {
      const target = stdFd(fd);
      if (target === 0) {
        const err = new Error('EBADF: bad file descriptor, write');
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
  constructor(input, output, completer, terminal, promises) {
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
    this._questions = [];
    this._partial = '';
    this._iterators = [];
    this._promises = !!promises;
    const self = this;
    if (this.input === stdinStream) {
      stdinHub.subscribe({
        onData(text) { self._onData(text); },
        onEnd() { self._onEnd(); },
      });
    } else if (this.input && typeof this.input.on === 'function') {
      this.input.on('data', function (c) { self._onData(typeof c === 'string' ? c : String(c)); });
      this.input.on('end', function () { self._onEnd(); });
    }
  }
  _onData(text) {
    if (this.closed) return;
    const all = this._partial + text;
    const parts = all.split(/\r\n|\n|\r/);
    this._partial = parts.pop();
    // A chunk ending in '\r' may be followed by '\n' in the next chunk; there is only one chunk here.
    for (let i = 0; i < parts.length; i++) {
      if (this.closed) return;
      this._onLine(parts[i]);
    }
  }
  _onEnd() {
    if (this.closed) return;
    if (this._partial.length > 0) { const l = this._partial; this._partial = ''; this._onLine(l); }
    this.close();
  }
  _onLine(line) {
    if (this._questions.length > 0) {
      const cb = this._questions.shift();
      cb(line);
      return;
    }
    for (const it of this._iterators) it.push(line);
    this.emit('line', line);
  }
  _write(s) { if (this.output && typeof this.output.write === 'function') this.output.write(s); }
  close() {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
    for (const it of this._iterators) it.end();
  }
  pause() { this.emit('pause'); return this; }
  resume() { this.emit('resume'); return this; }
  setPrompt(p) { this._prompt = String(p); }
  getPrompt() { return this._prompt; }
  prompt() { this._write(this._prompt); }
  write(data) { if (!this.closed && typeof data === 'string') this._onData(data); }
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
    const queue = [];
    let done = this.closed;
    let waiting = null;
    const sink = {
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

function makeReadline(promises) {
  class PromisesInterface extends Interface {
    constructor(input, output, completer, terminal) { super(input, output, completer, terminal, true); }
  }
  const Ctor = promises ? PromisesInterface : Interface;
  Object.defineProperty(Ctor, 'name', { value: 'Interface' });
  return {
    Interface: Ctor,
    createInterface: function createInterface(input, output, completer, terminal) {
      return new Ctor(input, output, completer, terminal);
    },
  };
}

function promisify(original) {
  if (typeof original !== 'function') {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "original" argument must be of type function. Received ' + describeReceived(original));
  }
  const custom = original[promisify.custom];
  if (typeof custom === 'function') return custom;
  const fn = function () {
    const args = argsOf(arguments);
    const self = this;
    return new Promise(function (resolve, reject) {
      args.push(function (err, value) { if (err) reject(err); else resolve(value); });
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
    formatWithOptions: function (opts) { return formatWithOptions(opts, restArgs(arguments, 1)); },
    inspect: inspect,
    isDeepStrictEqual: isDeepStrictEqual,
    promisify: promisify,
    inherits: function inherits(ctor, superCtor) {
      Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
      Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
    },
    deprecate: function deprecate(fn) { return fn; },
  };
}

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
      setTimeout: function (ms, value) { return new Promise(function (r) { setTimeoutImpl(r, ms, value); }); },
      setImmediate: function (value) { return new Promise(function (r) { setImmediateImpl(r, value); }); },
    };
  },
};
const builtinCache = new Map();

function requireBuiltin(id) {
  if (typeof id !== 'string') {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "id" argument must be of type string. Received ' + describeReceived(id));
  }
  if (id === '') throw makeNodeError(TypeError, 'ERR_INVALID_ARG_VALUE', "The argument 'id' must be a non-empty string. Received ''");
  const name = id.startsWith('node:') ? id.slice(5) : id;
  if (builtinCache.has(name)) return builtinCache.get(name);
  const factory = Object.prototype.hasOwnProperty.call(builtinFactories, name) ? builtinFactories[name] : undefined;
  if (factory === undefined) {
    const err = new Error("Cannot find module '" + id + "'\nRequire stack:\n- " + cfg.filename);
    err.code = 'MODULE_NOT_FOUND';
    err.requireStack = [cfg.filename];
    throw err;
  }
  const value = factory();
  builtinCache.set(name, value);
  return value;
}

// ---- globals and entry ----------------------------------------------------------------

function defineGlobal(name, value) {
  Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
}
defineGlobal('global', G);
defineGlobal('console', consoleObject);
defineGlobal('process', processObject);
defineGlobal('setTimeout', setTimeoutImpl);
defineGlobal('setInterval', setIntervalImpl);
defineGlobal('setImmediate', setImmediateImpl);
defineGlobal('clearTimeout', clearTimeout);
defineGlobal('clearInterval', clearTimeout);
defineGlobal('clearImmediate', clearImmediate);
defineGlobal('queueMicrotask', queueMicrotaskImpl);
defineGlobal('performance', { now: function now() { return nowMs(); }, timeOrigin: startReal });
Object.defineProperty(G, REQUIRE_HOOK, { value: requireBuiltin, configurable: false, enumerable: false, writable: false });

function runMain(fn) {
  delete G[MAIN_HOOK];
  invokeEntry(fn);
}

function makeModule() {
  const mod = {
    id: '.', path: cfg.dirname, exports: {}, filename: cfg.filename, loaded: false,
    children: [], paths: [cfg.dirname + '/node_modules', '/node_modules'],
  };
  const req = function require(id) { return requireBuiltin(id); };
  req.main = mod;
  req.cache = Object.create(null);
  req.resolve = function resolve(id) { requireBuiltin(id); return id; };
  mod.require = req;
  return mod;
}

function invokeEntry(fn) {
  const mod = makeModule();
  const req = mod.require;
  try {
    fn.call(mod.exports, mod.exports, req, mod, cfg.filename, cfg.dirname);
    mod.loaded = true;
  } catch (err) {
    fatal(err);
  }
  drainTicks();
}

// Only 'start' (before any program code exists) is called synchronously by the host;
// every later op can reach code the program may have patched, so the host calls
// them asynchronously with the run's remaining time as timeout.
function ctl(op, a, b, c, d) {
  if (op === 'start') {
    stdinText = typeof a === 'string' ? a : '';
    hostWrite = b;
    hostExit = c;
    cfg = JSON.parse(d);
    startReal = Date.now();
    lastFlush = startReal;
    configureProcess();
    Object.defineProperty(G, MAIN_HOOK, { value: runMain, configurable: true, enumerable: false, writable: false });
    if (cfg.cjsGlobals) {
      // Only visible to ES module code; the CommonJS wrapper's parameters shadow them.
      const entry = makeModule();
      defineGlobal('require', entry.require);
      defineGlobal('module', entry);
      defineGlobal('exports', entry.exports);
      defineGlobal('__filename', cfg.filename);
      defineGlobal('__dirname', cfg.dirname);
    }
    return;
  }
  if (op === 'step') {
    // One macrotask; returns 1 (maybe more to do), 'tle', or the final [code, stdout, stderr].
    if (dead) return finalTuple();
    const r = loopAlive() ? runOneTask() : 'idle';
    if (r === 'tle') return 'tle';
    if (r === 'ran') return dead ? finalTuple() : 1;
    const code = exitCodeValue === undefined ? 0 : exitCodeValue;
    if (processObject.listenerCount('beforeExit') > 0) {
      try { processObject.emit('beforeExit', code); } catch (err) { fatal(err); }
      drainTicks();
      if (dead) return finalTuple();
      if (loopAlive()) return 1;
    }
    if (processObject.listenerCount('exit') > 0) {
      try { processObject.emit('exit', code); } catch (err) { fatal(err); }
    }
    return finalTuple();
  }
  if (op === 'warm') {
    // Run at preparation time, before any program: compiles the hot paths lazily
    // parsed by V8 and computes the shim's line table (first stack trace), so the
    // first real call does not pay for it. Leaves no state behind.
    new Error('warm-up').stack;
    invokeEntry(function () {});
    consoleWrite(1, ['warm', 1, { a: [1, 'x'] }, null]);
    pendingOut[0] = '';
    pendingLen = 0;
    writesSinceCheck = 0;
    return loopAlive();
  }
  if (op === 'die') {
    if (!dead) {
      exitCodeValue = typeof b === 'number' ? b : 1;
      if (typeof a === 'string') pendingOut[1] += a;
    }
    return finalTuple();
  }
  throw new Error('unknown op ' + op);
}
return ctl;
`;
