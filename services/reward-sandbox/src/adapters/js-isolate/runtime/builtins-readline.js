// @ts-check
// In-isolate `node:readline` (and readline/promises): createInterface over
// process.stdin (or any emitter), 'line' events, question(), async iteration.

import { EventEmitter } from './events.js';
import { makeNodeError } from './io.js';
import { stdinStream } from './process.js';
import { stdinHub } from './streams.js';

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
export function makeReadline(promises) {
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
