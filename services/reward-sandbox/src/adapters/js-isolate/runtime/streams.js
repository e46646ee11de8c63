// @ts-check
// In-isolate stdio: stdin delivery (read once, shared by fs.readFileSync(0) and the
// process.stdin stream) and the process.stdin / stdout / stderr streams.

import { bufferFromText } from './buffer.js';
import { EventEmitter } from './events.js';
import { chunkToString, rawWrite, stdinText } from './io.js';
import { nextTick, queuePoll } from './loop.js';

// ---- stdin ----------------------------------------------------------------------

let stdinConsumed = false;
/** The whole stdin text the first time, '' afterwards (fs.readFileSync(0) and the stream share it). */
export function takeStdin() {
  const text = stdinConsumed ? '' : stdinText;
  stdinConsumed = true;
  return text;
}
export const stdinHub = {
  /** @type {Array<{ onData(text: string): void, onEnd(): void }>} */
  consumers: [],
  scheduled: false,
  /** @param {{ onData(text: string): void, onEnd(): void }} consumer */
  subscribe(consumer) {
    this.consumers.push(consumer);
    if (this.scheduled) return;
    this.scheduled = true;
    const hub = this;
    // Node delivers piped stdin after the main script, data first and 'end' in a later turn.
    queuePoll(function () {
      const text = takeStdin();
      if (text !== '') for (const c of hub.consumers.slice()) c.onData(text);
      queuePoll(function () {
        for (const c of hub.consumers.slice()) c.onEnd();
      });
    });
  },
};

export class ReadStream extends EventEmitter {
  constructor() {
    super();
    this.fd = 0;
    this.readable = true;
    this.readableEnded = false;
    this._encoding = null;
    this._paused = true;
    this._subscribed = false;
    /** @type {string[]} stdin text not yet emitted */
    this._buffered = [];
    this._ended = false;
    this._readableMode = false;
  }
  _subscribe() {
    if (this._subscribed) return;
    this._subscribed = true;
    const self = this;
    stdinHub.subscribe({
      /** @param {string} text */
      onData(text) { self._buffered.push(text); self._pump(); },
      onEnd() { self._ended = true; self._pump(); },
    });
  }
  /** @param {string} text */
  _chunk(text) { return this._encoding ? text : bufferFromText(text); }
  _pump() {
    if (this._readableMode) {
      if (this._buffered.length > 0 || this._ended) this.emit('readable');
      if (this._ended && this._buffered.length === 0 && !this.readableEnded) this._finish();
      return;
    }
    if (this._paused) return;
    while (this._buffered.length > 0 && !this._paused) this.emit('data', this._chunk(/** @type {string} */ (this._buffered.shift())));
    if (this._ended && this._buffered.length === 0 && !this.readableEnded) this._finish();
  }
  _finish() {
    this.readableEnded = true;
    this.readable = false;
    this.emit('end');
    this.emit('close');
  }
  /**
   * @override
   * @param {unknown} name
   */
  _onAdd(name) {
    if (name === 'data' && !this._readableMode) this.resume();
    else if (name === 'readable') { this._readableMode = true; this._subscribe(); }
  }
  /** @param {any} enc */
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
    /** @type {unknown[]} */
    const queue = [];
    let done = false;
    /** @type {((result: IteratorResult<unknown>) => void) | null} */
    let waiting = null;
    this._readableMode = false;
    this.on('data', function (/** @type {any} */ chunk) { if (waiting) { const w = waiting; waiting = null; w({ value: chunk, done: false }); } else queue.push(chunk); });
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

export class WriteStream extends EventEmitter {
  /** @param {number} fd */
  constructor(fd) { super(); this.fd = fd; this.writable = true; this._isStdio = true; }
  /**
   * @param {any} chunk
   * @param {any} encoding
   * @param {Function} [cb]
   */
  write(chunk, encoding, cb) {
    if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
    rawWrite(this.fd, chunkToString(chunk, encoding));
    if (typeof cb === 'function') nextTick(cb);
    return true;
  }
  /**
   * @param {any} chunk
   * @param {any} encoding
   * @param {Function} cb
   */
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
