// @ts-check
// In-isolate UTF-8 helpers and the minimal Buffer stand-in that fs.readFileSync
// returns without an encoding (toString, equals, inspect like Node's Buffer).

import { customInspectSymbol } from './inspect.js';
import { makeNodeError } from './io.js';

// ---- utf-8 and a minimal Buffer stand-in --------------------------------------

/** @param {string} str */
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

/**
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 */
export function utf8Decode(bytes, start, end) {
  let out = '';
  const units = [];
  for (let i = start; i < end;) {
    const b = /** @type {number} */ (bytes[i]);
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
        if (i >= end || (/** @type {number} */ (bytes[i]) & 0xc0) !== 0x80) { ok = false; break; }
        cp = (cp << 6) | (/** @type {number} */ (bytes[i]) & 63);
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

/** @typedef {SandboxBuffer & { _text?: string }} TextBuffer (Buffer.from(string) keeps its source text) */
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
export class SandboxBuffer extends Uint8Array {
  /**
   * @override
   * @param {any} [encoding]
   * @param {number} [start]
   * @param {number} [end]
   */
  toString(encoding, start, end) {
    start = start === undefined ? 0 : Math.max(0, start | 0);
    end = end === undefined ? this.length : Math.min(this.length, end | 0);
    const enc = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
    if (end <= start) return '';
    if (enc === 'utf8' || enc === 'utf-8') {
      if (start === 0 && end === this.length && typeof /** @type {TextBuffer} */ (this)._text === 'string') return /** @type {string} */ (/** @type {TextBuffer} */ (this)._text);
      return utf8Decode(this, start, end);
    }
    if (enc === 'latin1' || enc === 'binary' || enc === 'ascii') {
      let s = '';
      for (let i = start; i < end; i++) s += String.fromCharCode(enc === 'ascii' ? /** @type {number} */ (this[i]) & 0x7f : /** @type {number} */ (this[i]));
      return s;
    }
    if (enc === 'hex') {
      let s = '';
      for (let i = start; i < end; i++) s += (/** @type {number} */ (this[i]) < 16 ? '0' : '') + /** @type {number} */ (this[i]).toString(16);
      return s;
    }
    if (enc === 'base64') {
      let s = '';
      for (let i = start; i < end; i += 3) {
        // (casts: indices are in bounds, which noUncheckedIndexedAccess cannot see)
        const n = (/** @type {number} */ (this[i]) << 16) |
          ((i + 1 < end ? /** @type {number} */ (this[i + 1]) : 0) << 8) |
          (i + 2 < end ? /** @type {number} */ (this[i + 2]) : 0);
        s += /** @type {string} */ (B64[(n >> 18) & 63]) + /** @type {string} */ (B64[(n >> 12) & 63]) +
          (i + 1 < end ? /** @type {string} */ (B64[(n >> 6) & 63]) : '=') + (i + 2 < end ? /** @type {string} */ (B64[n & 63]) : '=');
      }
      return s;
    }
    throw makeNodeError(TypeError, 'ERR_UNKNOWN_ENCODING', 'Unknown encoding: ' + encoding);
  }
  toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
  /** @param {any} other */
  equals(other) { if (other.length !== this.length) return false; for (let i = 0; i < this.length; i++) if (this[i] !== other[i]) return false; return true; }
  [customInspectSymbol]() {
    const n = Math.min(50, this.length);
    let s = '<Buffer';
    for (let i = 0; i < n; i++) s += ' ' + (/** @type {number} */ (this[i]) < 16 ? '0' : '') + /** @type {number} */ (this[i]).toString(16);
    if (this.length > 50) s += ' ... ' + (this.length - 50) + ' more byte' + (this.length - 50 > 1 ? 's' : '');
    return s + '>';
  }
}
Object.defineProperty(SandboxBuffer, 'name', { value: 'Buffer' });
Object.defineProperty(SandboxBuffer.prototype, Symbol.toStringTag, { value: 'Uint8Array', configurable: true });

/** @param {string} text */
export function bufferFromText(text) {
  const buf = utf8Encode(text);
  Object.defineProperty(buf, '_text', { value: text, enumerable: false });
  return buf;
}

/**
 * @param {string} text
 * @param {any} encoding
 */
export function decodeAs(text, encoding) {
  if (encoding === undefined || encoding === null) return bufferFromText(text);
  const enc = String(encoding).toLowerCase();
  if (enc === 'utf8' || enc === 'utf-8') return text;
  return bufferFromText(text).toString(enc);
}
