// @ts-check
// In-isolate runtime, part 2: timers on the real clock, process.nextTick, the
// libuv-shaped event loop the host drives one macrotask at a time, and the poll
// queue stdin delivery (streams.js) goes through.

import { cfg, dead, describeReceived, makeNodeError, startReal } from './io.js';
import { fatal } from './process.js';

// ---- timers and the event loop ------------------------------------------------------

// A libuv-shaped loop (timers phase, poll phase for stdin, check phase for
// setImmediate) on the real clock, as Node's: when nothing is due, the loop tells
// the host how long to wait for the next timer (the host sleeps outside the
// isolate, then steps again). A next timer due after the run budget, with nothing
// else to do, means the real program would sit idle until the time limit killed
// it: the loop reports the time-out then. The host drives exactly one macrotask
// per call so that V8 drains the microtask queue between callbacks, as Node does.
/** A macrotask: a Timeout, an Immediate or a poll-phase callback (queuePoll). */
/** @typedef {{ active: boolean, refed: boolean, _run(): void }} Task */
/** @type {any[]} Timeout objects, a binary min-heap on (time, seq); `any` because the sift loops index it */
const timerHeap = [];
/** @type {Task[]} */
const pollQueue = [];
/** @type {Task[]} */
let immediateQueue = [];
/** @type {Task[]} */
let checkBatch = [];
let phase = 0; // 0 timers, 1 poll, 2 check
let loopStarted = false;
let seqCounter = 0;
let loopNow = 0; // cached loop time in ms since start, like uv_now()
let lastMainStart = 0; // when the main script last set a timer
let waited = false; // the last call returned a wait: update the loop time first
let refCount = 0;
const timersById = new Map();
/** @type {Array<{ fn: Function, args: unknown[] }>} */
const tickQueue = [];

// Captured at load: programs share this realm and may replace Reflect.
const reflectApply = Reflect.apply;
function realElapsed() { return Date.now() - startReal; }
export function nowMs() {
  const real = realElapsed();
  // Not Math.max: programs share this realm and may patch Math.
  return real > loopNow ? real : loopNow;
}
/**
 * @param {any} a
 * @param {any} b
 */
function less(a, b) { return a.time < b.time || (a.time === b.time && a.seq < b.seq); }
/** @param {any} t */
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
/** @param {Task} task */
function activate(task) {
  if (!task.active) {
    task.active = true;
    if (task.refed) refCount++;
  }
}
/** @param {Task} task */
function cancel(task) {
  if (task && task.active) {
    task.active = false;
    if (task.refed) refCount--;
  }
}
// As Node's insert(), which reads getLibuvNow() (an updated clock): a timer counts
// from when it is set (an interval from just before its callback runs), not from
// the loop time of the current iteration, so busy work before setTimeout does not
// make it due early.
/** @param {Timeout} task */
function scheduleTimer(task) {
  const start = nowMs();
  if (!loopStarted) lastMainStart = start;
  task.time = start + task._delay;
  task.seq = ++seqCounter;
  activate(task);
  heapPush(task);
}
/**
 * @param {Task} task
 * @param {boolean} on
 */
function setRef(task, on) {
  if (task.refed !== on) {
    task.refed = on;
    if (task.active) refCount += on ? 1 : -1;
  }
}

class Timeout {
  /**
   * @param {Function} fn
   * @param {any} args
   * @param {number} delay
   * @param {boolean} repeat
   */
  constructor(fn, args, delay, repeat) {
    this._onTimeout = fn; this._args = args; this._delay = delay; this._repeat = repeat;
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
    // As Node's listOnTimeout: `this` is the Timeout, and a stack frame reads `Timeout._onTimeout`.
    if (this._args.length === 0) this._onTimeout();
    else reflectApply(this._onTimeout, this, this._args);
  }
}
class Immediate {
  /**
   * @param {Function} fn
   * @param {any} args
   */
  constructor(fn, args) { this._onImmediate = fn; this._args = args; this.active = false; this.refed = true; }
  ref() { setRef(this, true); return this; }
  unref() { setRef(this, false); return this; }
  hasRef() { return this.refed; }
  _run() {
    cancel(this);
    if (this._args.length === 0) this._onImmediate();
    else reflectApply(this._onImmediate, this, this._args);
  }
}

/** @param {Function} fn */
function checkCallback(fn) {
  if (typeof fn !== 'function') {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "callback" argument must be of type function. Received ' + describeReceived(fn));
  }
}
/** @param {any} delay */
function normalizeDelay(delay) {
  delay = delay * 1;
  if (!(delay >= 1 && delay <= 2147483647)) delay = 1;
  return delay;
}
/**
 * @param {any} args
 * @param {any} from
 */
export function restArgs(args, from) {
  const out = [];
  for (let i = from; i < args.length; i++) out.push(args[i]);
  return out;
}
/**
 * @param {Function} fn
 * @param {any} delay
 */
export function setTimeoutImpl(fn, delay) {
  checkCallback(fn);
  const t = new Timeout(fn, restArgs(arguments, 2), normalizeDelay(delay), false);
  timersById.set(t._id, t);
  scheduleTimer(t);
  return t;
}
/**
 * @param {Function} fn
 * @param {any} delay
 */
export function setIntervalImpl(fn, delay) {
  checkCallback(fn);
  const t = new Timeout(fn, restArgs(arguments, 2), normalizeDelay(delay), true);
  timersById.set(t._id, t);
  scheduleTimer(t);
  return t;
}
/** @param {Function} fn */
export function setImmediateImpl(fn) {
  checkCallback(fn);
  const t = new Immediate(fn, restArgs(arguments, 1));
  activate(t);
  immediateQueue.push(t);
  return t;
}
/** @param {any} t */
export function clearTimeout(t) {
  if (t === null || t === undefined) return;
  if (typeof t === 'number' || typeof t === 'string') t = timersById.get(Number(t));
  if (t instanceof Timeout) { cancel(t); timersById.delete(t._id); }
}
/** @param {any} t */
export function clearImmediate(t) { if (t instanceof Immediate) cancel(t); }
// util.promisify(setTimeout) / (setImmediate) resolve with `value`, as in Node.
/** @type {any} */ (setTimeoutImpl)[Symbol.for('nodejs.util.promisify.custom')] = function (/** @type {number} */ ms, /** @type {unknown} */ value) {
  return new Promise(function (resolve) { setTimeoutImpl(resolve, ms, value); });
};
/** @type {any} */ (setImmediateImpl)[Symbol.for('nodejs.util.promisify.custom')] = function (/** @type {unknown} */ value) {
  return new Promise(function (resolve) { setImmediateImpl(resolve, value); });
};
Object.defineProperty(setTimeoutImpl, 'name', { value: 'setTimeout' });
Object.defineProperty(setIntervalImpl, 'name', { value: 'setInterval' });
Object.defineProperty(setImmediateImpl, 'name', { value: 'setImmediate' });

// An I/O callback (stdin delivery), run in the poll phase.
/** @param {Function} fn */
export function queuePoll(fn) {
  /** @type {Task & { _fn: Function }} */
  const task = { _fn: fn, active: false, refed: true, _run: function () { cancel(this); this._fn(); } };
  activate(task);
  pollQueue.push(task);
}

/** @param {Function} fn */
export function queueMicrotaskImpl(fn) {
  checkCallback(fn);
  // biome-ignore lint/nursery/noFloatingPromises: the callback catches its own errors (reported as uncaught, like Node)
  Promise.resolve().then(function () {
    try { fn(); } catch (err) { fatal(err); }
  });
}

// process.nextTick callbacks run before promise jobs: the queue is drained right
// after the main script, after each macrotask and after each tick. A tick queued
// by a promise job waits, as in Node's processTicksAndRejections, until the
// microtask queue is empty: V8 empties it when the host's call returns, and the
// host's next step drains the ticks before any macrotask (runOneTask). That costs a
// host round trip per hand-over (tens of microseconds), paid only by ticks queued
// from promise jobs; draining them in a promise job instead ran them too early.
export function drainTicks() {
  while (tickQueue.length > 0 && !dead) {
    const entry = /** @type {{ fn: Function, args: unknown[] }} */ (tickQueue.shift());
    try { entry.fn.apply(undefined, entry.args); } catch (err) { fatal(err); }
  }
}
/** @param {Function} fn */
export function nextTick(fn) {
  checkCallback(fn);
  tickQueue.push({ fn: fn, args: restArgs(arguments, 1) });
}

/** @param {Task} task */
function runTask(task) {
  try { task._run(); } catch (err) { fatal(err); }
  drainTicks();
}

// Runs the ticks promise jobs queued, or else exactly one macrotask in libuv phase
// order, and returns 'ran'; returns 'idle'
// when nothing keeps the loop alive, the milliseconds until the next timer when
// only timers are left and none is due, and 'tle' when that timer is due after the budget.
export function runOneTask() {
  if (tickQueue.length > 0) { drainTicks(); return 'ran'; }
  if (!loopStarted) {
    loopStarted = true;
    // Node's first iteration reads its clock after the main script and the rest of
    // bootstrap, a millisecond or more, so the main script's 1 ms timers are
    // normally already due then (before its immediates).
    const real = realElapsed();
    loopNow = real > loopNow ? real : loopNow;
    if (loopNow < lastMainStart + 1) loopNow = lastMainStart + 1;
  } else if (waited) {
    // Back from the host's wait: libuv updates its clock after polling.
    const real = realElapsed();
    if (real > loopNow) loopNow = real;
  }
  waited = false;
  for (;;) {
    if (phase === 0) {
      while (timerHeap.length > 0 && !timerHeap[0].active) heapPop();
      if (timerHeap.length > 0 && timerHeap[0].time <= loopNow) { runTask(heapPop()); return 'ran'; }
      phase = 1;
    }
    if (phase === 1) {
      while (pollQueue.length > 0) {
        const task = /** @type {Task} */ (pollQueue.shift());
        if (task.active) { runTask(task); return 'ran'; }
      }
      phase = 2;
      checkBatch = immediateQueue;
      immediateQueue = [];
    }
    while (checkBatch.length > 0) {
      const task = /** @type {Task} */ (checkBatch.shift());
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
        waited = true;
        return next - loopNow;
      }
    }
  }
}

export function loopAlive() {
  return refCount > 0 || tickQueue.length > 0;
}
