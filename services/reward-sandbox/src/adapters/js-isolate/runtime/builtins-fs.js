// @ts-check
// In-isolate `node:fs`: stdin through readFileSync(0 | '/dev/stdin'), stdout and
// stderr through writeSync/writeFileSync, and an in-memory scratch store for other
// paths (nothing touches a real file system).

import { decodeAs, SandboxBuffer, utf8Decode } from './buffer.js';
import { cfg, chunkToString, describeReceived, makeNodeError, rawWrite } from './io.js';
import { takeStdin } from './streams.js';

/** @typedef {Error & Record<string, unknown>} NodeError an Error carrying Node's errno/code/syscall fields */

/**
 * @param {string} syscall
 * @param {any} path
 */
function enoent(syscall, path) {
  const err = /** @type {NodeError} */ (new Error('ENOENT: no such file or directory, ' + syscall + " '" + path + "'"));
  err.errno = -2;
  err.code = 'ENOENT';
  err.syscall = syscall;
  err.path = path;
  return err;
}
/** @param {any} p */
function isStdinPath(p) { return p === 0 || p === '/dev/stdin' || p === '/proc/self/fd/0' || p === '/dev/fd/0'; }
/** @param {any} p */
function stdFd(p) {
  if (p === 1 || p === '/dev/stdout' || p === '/proc/self/fd/1' || p === '/dev/fd/1') return 1;
  if (p === 2 || p === '/dev/stderr' || p === '/proc/self/fd/2' || p === '/dev/fd/2') return 2;
  return 0;
}
/** @param {any} options */
function encodingOf(options) {
  if (typeof options === 'string') return options;
  if (options && typeof options === 'object') return options.encoding;
  return undefined;
}
/** @param {any} p */
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

export function makeFs() {
  // Files the program writes live only in memory for this run: the isolate has no filesystem.
  const files = new Map();
  /**
   * @param {any} data
   * @param {any} options
   */
  function dataString(data, options) {
    if (typeof data === 'string') return data;
    if (ArrayBuffer.isView(data)) return chunkToString(data, encodingOf(options));
    return String(data);
  }
  return {
    /**
     * @param {any} path
     * @param {any} options
     */
    readFileSync: function readFileSync(path, options) {
      const enc = encodingOf(options);
      if (isStdinPath(path)) {
        const text = takeStdin();
        return decodeAs(text, enc);
      }
      const key = typeof path === 'number' ? null : normPath(path);
      if (key === null || !files.has(key)) {
        if (typeof path === 'number') {
          const err = /** @type {NodeError} */ (new Error('EBADF: bad file descriptor, read'));
          err.errno = -9; err.code = 'EBADF'; err.syscall = 'read';
          throw err;
        }
        throw enoent('open', path);
      }
      return decodeAs(files.get(key), enc);
    },
    /**
     * @param {any} path
     * @param {any} data
     * @param {any} options
     */
    writeFileSync: function writeFileSync(path, data, options) {
      const fd = stdFd(path);
      if (fd !== 0) { rawWrite(fd, dataString(data, options)); return; }
      files.set(normPath(path), dataString(data, options));
    },
    /**
     * @param {any} path
     * @param {any} data
     * @param {any} options
     */
    appendFileSync: function appendFileSync(path, data, options) {
      const fd = stdFd(path);
      if (fd !== 0) { rawWrite(fd, dataString(data, options)); return; }
      const key = normPath(path);
      files.set(key, (files.get(key) || '') + dataString(data, options));
    },
    /** @param {any} path */
    existsSync: function existsSync(path) {
      if (isStdinPath(path) || stdFd(path) !== 0) return true;
      try { return files.has(normPath(path)) || normPath(path) === cfg.filename; } catch { return false; }
    },
    /**
     * @param {number} fd
     * @param {any} data
     * @param {any} a
     * @param {any} b
     */
    writeSync: function writeSync(fd, data, a, b) {
      const target = stdFd(fd);
      if (target === 0) {
        const err = /** @type {NodeError} */ (new Error('EBADF: bad file descriptor, write'));
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
