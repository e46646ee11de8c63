// @ts-check
// In-isolate `node:events`: EventEmitter (also the base of process and the
// stdio streams).

import { inspect } from './inspect-value.js';
import { describeReceived, makeNodeError } from './io.js';

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
