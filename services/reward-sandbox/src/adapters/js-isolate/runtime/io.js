// @ts-check
// In-isolate runtime, part 1: shared state and output buffering (the only host
// callbacks the isolate ever sees take strings/numbers: write and exit), and the
// Node-style error helpers.

import { SandboxBuffer, utf8Decode } from './buffer.js';
import { inspect } from './inspect-value.js';

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
