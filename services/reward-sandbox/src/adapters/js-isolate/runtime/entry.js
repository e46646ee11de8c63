// @ts-check
// In-isolate runtime, part 5: globals, the CommonJS entry hook and `ctl`, the
// single control function the host drives (start / step / die); shim-source.ts
// ends the assembled IIFE with `return ctl;`.

import { requireBuiltin } from './builtins.js';
import {
  cfg, dead, exitCodeValue, finalTuple, G, MAIN_HOOK, rawWrite, REQUIRE_HOOK, resetOutput, setExitCode,
  startReal, startRun,
} from './io.js';
import {
  clearImmediate, clearTimeout, drainTicks, loopAlive, nowMs, queueMicrotaskImpl, runOneTask,
  setImmediateImpl, setIntervalImpl, setTimeoutImpl,
} from './loop.js';
import { configureProcess, consoleObject, consoleWrite, fatal, processObject } from './process.js';

// ---- globals and entry ----------------------------------------------------------------

/**
 * @param {any} name
 * @param {any} value
 */
function defineGlobal(name, value) {
  Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
}
// WebAssembly memory lives outside the isolate's memory limit (which counts the
// heap and every ArrayBuffer, shared or not), so the isolate has no WebAssembly:
// static-check.ts sends programs that name it to the native runner, whose run
// cgroup counts it; this covers the ones that reach it indirectly.
delete G.WebAssembly;
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

/** @param {Function} fn */
function runMain(fn) {
  delete G[MAIN_HOOK];
  invokeEntry(fn);
}

function makeModule() {
  /** @type {Record<string, any>} the CommonJS `module` object */
  const mod = {
    id: '.', path: cfg.dirname, exports: {}, filename: cfg.filename, loaded: false,
    children: [], paths: [cfg.dirname + '/node_modules', '/node_modules'],
  };
  /** @param {any} id */
  const req = function require(id) { return requireBuiltin(id); };
  req.main = mod;
  req.cache = Object.create(null);
  /** @param {any} id */
  req.resolve = function resolve(id) { requireBuiltin(id); return id; };
  mod.require = req;
  return mod;
}

/** @param {Function} fn */
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
/**
 * @param {any} op
 * @param {any} a
 * @param {any} b
 * @param {any} c
 * @param {any} d
 * @param {any} [e]
 */
export function ctl(op, a, b, c, d, e) {
  if (op === 'start') {
    startRun(a, b, c, d, e);
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
    // One macrotask; returns 1 (maybe more to do), -ms (nothing to do for ms
    // milliseconds: the host sleeps, then steps again), 'tle', or the final [code].
    if (dead) return finalTuple();
    const r = loopAlive() ? runOneTask() : 'idle';
    if (r === 'tle') return 'tle';
    if (typeof r === 'number') return -r;
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
    resetOutput();
    return loopAlive();
  }
  if (op === 'die') {
    if (!dead) {
      setExitCode(typeof b === 'number' ? b : 1);
      if (typeof a === 'string') rawWrite(2, a);
    }
    return finalTuple();
  }
  throw new Error('unknown op ' + op);
}
