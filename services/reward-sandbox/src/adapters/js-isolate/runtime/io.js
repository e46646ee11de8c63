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
// Output goes into two buffers shared with the worker (worker/output-channel.ts):
// UTF-16 code units, then the committed length (Atomics.store), so the worker can
// forward them at any time without entering the isolate. Until ctl('start') hands
// the run's buffers over, small local ones take the warm-up run's writes.
// Captured at load: programs share this realm and may replace Atomics.
const atomicsStore = Atomics.store;
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

// The two host callbacks (ivm.Callback): write(fd, text) forwards and rewinds the
// shared buffers, then forwards `text` (a string too long for them; '' when only
// the buffers are handed over), and returns the streams that reached the output
// cap (bit 0 stdout, bit 1 stderr); exit(code) disposes the isolate. Both are set by ctl('start')
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

/** @type {Int32Array} committed code units of stdout, stderr */
let outLengths = new Int32Array(2);
/** @type {[Uint16Array, Uint16Array]} */
let outUnits = [new Uint16Array(256), new Uint16Array(256)];
/** @type {[number, number]} the runtime's own copy of outLengths (only the host rewinds them, inside write) */
const outUsed = [0, 0];
/** @type {[boolean, boolean]} */
const streamFull = [false, false];
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
 * @param {any} shared the run's output buffers (worker/output-channel.ts)
 */
export function startRun(stdin, write, exit, configJson, shared) {
  stdinText = typeof stdin === 'string' ? stdin : '';
  hostWrite = write;
  hostExit = exit;
  cfg = JSON.parse(configJson);
  startReal = Date.now();
  const units = (shared.byteLength - 8) / 4;
  outLengths = new Int32Array(shared, 0, 2);
  outUnits = [new Uint16Array(shared, 8, units), new Uint16Array(shared, 8 + 2 * units, units)];
  outUsed[0] = 0;
  outUsed[1] = 0;
}
/** @param {any} code */
export function setExitCode(code) { exitCodeValue = code; }
export function markDead() { dead = true; }
/** Forgets output written by the warm-up run. */
export function resetOutput() {
  outUsed[0] = 0;
  outUsed[1] = 0;
  sentChars[0] = 0;
}

// Hands the buffers to the host (or sends `s` past them), keeping what it says is full.
/**
 * @param {number} fd
 * @param {string} s
 */
function handOver(fd, s) {
  outUsed[0] = 0;
  outUsed[1] = 0;
  if (hostWrite === null) return;
  const full = hostWrite(fd, s);
  // Only an explicit "full" stops a stream: the host sink enforces the cap either way.
  if (typeof full === 'number') {
    if ((full & 1) !== 0) streamFull[0] = true;
    if ((full & 2) !== 0) streamFull[1] = true;
  }
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
  const units = outUnits[i];
  let used = outUsed[i];
  if (used + s.length > units.length) {
    handOver(fd, s.length > units.length ? s : '');
    if (s.length > units.length) return;
    used = 0;
  }
  for (let k = 0; k < s.length; k++) units[used + k] = s.charCodeAt(k);
  used += s.length;
  outUsed[i] = used;
  atomicsStore(outLengths, i, used);
}

/** The final [exit code]; the output is already in the shared buffers. */
export function finalTuple() {
  dead = true;
  return [exitCodeValue === undefined ? 0 : exitCodeValue];
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
