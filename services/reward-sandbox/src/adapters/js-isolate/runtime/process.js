// @ts-check
// In-isolate runtime, part 3: console, the process object, and Node-style
// reporting of uncaught exceptions.

import { EventEmitter } from './events.js';
import { formatWithOptions } from './format.js';
import { isError } from './inspect-types.js';
import { inspect } from './inspect-value.js';
import { BACKTICK } from './inspect.js';
import {
  cfg, dead, describeReceived, exitCodeValue, hostExit, makeNodeError, markDead, rawWrite,
  setExitCode,
} from './io.js';
import { nextTick, nowMs, restArgs } from './loop.js';
import { ReadStream, WriteStream } from './streams.js';

// ---- console --------------------------------------------------------------------

let groupIndent = '';
const counts = new Map();
const timeLabels = new Map();
/**
 * @param {number} fd
 * @param {any} args
 */
export function consoleWrite(fd, args) {
  let s = args.length === 1 && typeof args[0] === 'string' ? args[0] : formatWithOptions(undefined, args);
  if (groupIndent.length !== 0) {
    if (s.includes('\n')) s = s.replace(/\n/g, '\n' + groupIndent);
    s = groupIndent + s;
  }
  rawWrite(fd, s + '\n');
}
/** @param {any} a */
export function argsOf(a) { const out = new Array(a.length); for (let i = 0; i < a.length; i++) out[i] = a[i]; return out; }
/** @param {number} ms */
function formatDuration(ms) {
  if (ms >= 1000) return (ms / 1000).toFixed(3) + 's';
  return ms.toFixed(3) + 'ms';
}
export const consoleObject = {
  log: function log() { consoleWrite(1, argsOf(arguments)); },
  info: function info() { consoleWrite(1, argsOf(arguments)); },
  debug: function debug() { consoleWrite(1, argsOf(arguments)); },
  dirxml: function dirxml() { consoleWrite(1, argsOf(arguments)); },
  error: function error() { consoleWrite(2, argsOf(arguments)); },
  warn: function warn() { consoleWrite(2, argsOf(arguments)); },
  trace: function trace() {
    /** @type {{ name: string, message: string, stack?: string }} */
    const err = { name: 'Trace', message: formatWithOptions(undefined, argsOf(arguments)) };
    Error.captureStackTrace(err, trace);
    consoleWrite(2, [err.stack]);
  },
  /**
   * @param {any} obj
   * @param {any} options
   */
  dir: function dir(obj, options) {
    rawWrite(1, inspect(obj, Object.assign({ customInspect: false }, options)) + '\n');
  },
  /** @param {any} expression */
  assert: function assert(expression) {
    if (!expression) {
      const args = restArgs(arguments, 1);
      args[0] = 'Assertion failed' + (args.length === 0 ? '' : ': ' + args[0]);
      consoleWrite(2, args);
    }
  },
  /** @param {any} label */
  count: function count(label) {
    label = label === undefined ? 'default' : '' + label;
    const n = (counts.get(label) || 0) + 1;
    counts.set(label, n);
    consoleWrite(1, [label + ': ' + n]);
  },
  /** @param {any} label */
  countReset: function countReset(label) { counts.delete(label === undefined ? 'default' : '' + label); },
  /** @param {any} label */
  time: function time(label) { timeLabels.set(label === undefined ? 'default' : '' + label, Date.now()); },
  /** @param {any} label */
  timeEnd: function timeEnd(label) {
    label = label === undefined ? 'default' : '' + label;
    const t = timeLabels.get(label);
    if (t === undefined) return;
    timeLabels.delete(label);
    consoleWrite(1, [label + ': ' + formatDuration(Date.now() - t)]);
  },
  /** @param {any} label */
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

/** @type {EventEmitter & Record<string, any>} members are listed in modules.ts (PROCESS_MEMBERS) */
export const processObject = new EventEmitter();
export const stdinStream = new ReadStream();
const stdoutStream = new WriteStream(1);
const stderrStream = new WriteStream(2);

/**
 * @param {any} code
 * @param {string} [stderrText]
 */
function exitNow(code, stderrText) {
  if (dead) return;
  setExitCode(code);
  try { processObject.emit('exit', code); } catch {}
  if (stderrText) rawWrite(2, stderrText);
  markDead();
  // The host disposes the isolate inside this call, which stops execution for good.
  /** @type {(code: number | undefined) => void} */ (hostExit)(exitCodeValue);
  throw new Error('process exited');
}

/** @param {any} code */
function toExitCode(code) {
  if (code === undefined || code === null) return exitCodeValue === undefined ? 0 : exitCodeValue;
  const n = Number(code);
  if (!Number.isInteger(n)) {
    throw makeNodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "code" argument must be of type number. Received ' + describeReceived(code));
  }
  return n & 0xff;
}

/** @param {any} prev */
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
  /** @param {any} code */
  p.exit = function exit(code) { exitNow(toExitCode(code)); };
  p.nextTick = nextTick;
  p.hrtime = hrtime;
  p.uptime = function uptime() { return nowMs() / 1000; };
  p.cwd = function cwd() { return cfg.dirname; };
  /**
   * @param {any} warning
   * @param {string} type
   */
  p.emitWarning = function emitWarning(warning, type) {
    const name = typeof type === 'string' ? type : (warning && warning.name) || 'Warning';
    const msg = typeof warning === 'string' ? warning : (warning && warning.message);
    rawWrite(2, '(node:1) ' + name + ': ' + msg + '\n(Use ' + BACKTICK + 'node --trace-warnings ...' + BACKTICK + ' to show where the warning was created)\n');
  };
  Object.defineProperty(p, 'exitCode', {
    get() { return exitCodeValue; },
    set(v) { setExitCode(v === undefined || v === null ? undefined : toExitCode(v)); },
    enumerable: true, configurable: false,
  });
})();

export function configureProcess() {
  processObject.argv[1] = cfg.filename;
  processObject.version = cfg.version;
  processObject.versions.node = cfg.version.slice(1);
}

// ---- uncaught errors --------------------------------------------------------------

/** @param {unknown} stack */
function frameLocation(stack) {
  if (typeof stack !== 'string') return null;
  const lines = stack.split('\n');
  const needle = cfg.filename + ':';
  for (let i = 0; i < lines.length; i++) {
    const line = /** @type {string} */ (lines[i]);
    const idx = line.indexOf(needle);
    if (idx === -1 || !/^\s+at /.test(line)) continue;
    const m = /:(\d+):(\d+)\)?$/.exec(line);
    if (m) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return null;
}
/** @type {string[] | null} the program's lines, split on first use */
let sourceLines = null;
/**
 * @param {number} n
 * @returns {string | null}
 */
function sourceLine(n) {
  if (sourceLines === null) sourceLines = cfg.source.split(/\r?\n/);
  return n >= 1 && n <= sourceLines.length ? /** @type {string} */ (sourceLines[n - 1]) : null;
}
/** @param {any} err */
function uncaughtHeader(err) {
  let stack;
  try { stack = err.stack; } catch {}
  const loc = frameLocation(stack);
  if (loc === null) return '';
  const text = sourceLine(loc.line);
  if (text === null) return '';
  return cfg.filename + ':' + loc.line + '\n' + text + '\n' + ' '.repeat(Math.max(0, loc.column - 1)) + '^\n\n';
}
/** @param {any} err */
function formatUncaught(err) {
  const footer = '\n\nNode.js ' + cfg.version + '\n';
  if (isError(err)) return uncaughtHeader(err) + inspect(err) + footer;
  const shown = typeof err === 'string' ? err : inspect(err);
  const hint = typeof err !== 'object' || err === null ? '\n(Use ' + BACKTICK + 'node --trace-uncaught ...' + BACKTICK + ' to show where the exception was thrown)' : '';
  return '\n' + shown + hint + footer;
}
/** @param {any} err */
export function fatal(err) {
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
/** @param {Function} fn */
export function callSiteSource(fn) {
  /** @type {{ stack?: string }} */
  const holder = {};
  Error.captureStackTrace(holder, fn);
  const loc = frameLocation(holder.stack);
  if (loc === null) return null;
  const text = sourceLine(loc.line);
  if (text === null) return null;
  let start = loc.column - 1;
  while (start > 0 && /[\w$.]/.test(/** @type {string} */ (text[start - 1]))) start--;
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

