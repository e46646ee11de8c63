// @ts-check
// In-isolate `node:assert`: the assert function and its members (ok, equal,
// deepStrictEqual, throws, rejects, match...), strict or legacy (loose) flavour.

import { AssertionError } from './assert-error.js';
import { isDeepEqual, isDeepStrictEqual } from './compare-objects.js';
import { isRegExp } from './inspect-types.js';
import { inspect } from './inspect-value.js';
import { BACKTICK } from './inspect.js';
import { callSiteSource } from './process.js';

/**
 * @param {boolean} strictMode
 * @returns {Function & Record<string, any>} the `assert` function with its members
 */
export function makeAssert(strictMode) {
  /** @param {any} obj */
  function innerFail(obj) {
    if (obj.message instanceof Error) throw obj.message;
    throw new AssertionError(obj);
  }
  /**
   * @param {Function} fn
   * @param {number} argLen
   * @param {any} value
   * @param {any} message
   */
  function innerOk(fn, argLen, value, message) {
    if (!value) {
      let generatedMessage = false;
      if (argLen === 0) {
        generatedMessage = true;
        message = 'No value argument passed to ' + BACKTICK + 'assert.ok()' + BACKTICK;
      } else if (message == null) {
        generatedMessage = true;
        const src = callSiteSource(fn);
        message = src === null ? 'The expression evaluated to a falsy value:\n\n  ' + fn.name + '(' + inspect(value) + ')\n'
          : 'The expression evaluated to a falsy value:\n\n  ' + src + '\n';
      } else if (message instanceof Error) {
        throw message;
      }
      const err = new AssertionError({ actual: value, expected: true, message: message, operator: '==', stackStartFn: fn });
      err.generatedMessage = generatedMessage;
      throw err;
    }
  }
  /**
   * @param {any} value
   * @param {any} message
   */
  const assert = function ok(value, message) { innerOk(assert, arguments.length, value, message); };
  /**
   * @param {any} value
   * @param {any} message
   */
  assert.ok = function ok(value, message) { innerOk(assert.ok, arguments.length, value, message); };
  assert.AssertionError = AssertionError;
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   * @param {string | undefined} operator
   * @param {Function} stackStartFn
   */
  assert.fail = function fail(actual, expected, message, operator, stackStartFn) {
    const argsLen = arguments.length;
    let internalMessage = false;
    if (actual == null && argsLen <= 1) { internalMessage = true; message = 'Failed'; }
    else if (argsLen === 1) { message = actual; actual = undefined; }
    else { if (argsLen === 2) operator = '!='; }
    if (message instanceof Error) throw message;
    const err = new AssertionError({ actual: actual, expected: expected, operator: operator === undefined ? 'fail' : operator,
      stackStartFn: stackStartFn || fail, message: message });
    if (internalMessage) err.generatedMessage = true;
    throw err;
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  const looseEqual = function equal(actual, expected, message) {
    if (!(actual == expected || (actual !== actual && expected !== expected))) {
      innerFail({ actual: actual, expected: expected, message: message, operator: '==', stackStartFn: equal });
    }
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  const looseNotEqual = function notEqual(actual, expected, message) {
    if (actual == expected || (actual !== actual && expected !== expected)) {
      innerFail({ actual: actual, expected: expected, message: message, operator: '!=', stackStartFn: notEqual });
    }
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  const deepEqual = function deepEqual(actual, expected, message) {
    if (!isDeepEqual(actual, expected)) innerFail({ actual: actual, expected: expected, message: message, operator: 'deepEqual', stackStartFn: deepEqual });
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  const notDeepEqual = function notDeepEqual(actual, expected, message) {
    if (isDeepEqual(actual, expected)) innerFail({ actual: actual, expected: expected, message: message, operator: 'notDeepEqual', stackStartFn: notDeepEqual });
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  assert.deepStrictEqual = function deepStrictEqual(actual, expected, message) {
    if (!isDeepStrictEqual(actual, expected)) innerFail({ actual: actual, expected: expected, message: message, operator: 'deepStrictEqual', stackStartFn: deepStrictEqual });
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  assert.notDeepStrictEqual = function notDeepStrictEqual(actual, expected, message) {
    if (isDeepStrictEqual(actual, expected)) innerFail({ actual: actual, expected: expected, message: message, operator: 'notDeepStrictEqual', stackStartFn: notDeepStrictEqual });
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  assert.strictEqual = function strictEqual(actual, expected, message) {
    if (!Object.is(actual, expected)) innerFail({ actual: actual, expected: expected, message: message, operator: 'strictEqual', stackStartFn: strictEqual });
  };
  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   */
  assert.notStrictEqual = function notStrictEqual(actual, expected, message) {
    if (Object.is(actual, expected)) innerFail({ actual: actual, expected: expected, message: message, operator: 'notStrictEqual', stackStartFn: notStrictEqual });
  };
  assert.equal = strictMode ? assert.strictEqual : looseEqual;
  assert.notEqual = strictMode ? assert.notStrictEqual : looseNotEqual;
  assert.deepEqual = strictMode ? assert.deepStrictEqual : deepEqual;
  assert.notDeepEqual = strictMode ? assert.notDeepStrictEqual : notDeepEqual;

  /**
   * @param {any} actual
   * @param {any} expected
   * @param {any} message
   * @param {Function} fn
   */
  function checkExpected(actual, expected, message, fn) {
    if (expected === undefined) return;
    if (typeof expected === 'function') {
      if (expected.prototype !== undefined && actual instanceof expected) return;
      if (Error.isPrototypeOf(expected)) throw actual;
      if (expected.call({}, actual) === true) return;
      throw new AssertionError({ actual: actual, expected: expected, operator: fn.name, stackStartFn: fn,
        message: message || 'The ' + (expected.name ? '"' + expected.name + '" ' : '') + 'validation function is expected to return "true". Received ' + inspect(false) });
    }
    if (isRegExp(expected)) {
      const str = String(actual);
      if (RegExp.prototype.exec.call(expected, str) !== null) return;
      throw new AssertionError({ actual: actual, expected: expected, operator: fn.name, stackStartFn: fn,
        message: message || 'The input did not match the regular expression ' + inspect(expected) + '. Input:\n\n' + inspect(str) + '\n' });
    }
    if (typeof expected === 'object' && expected !== null) {
      const keys = Object.keys(expected);
      if (expected instanceof Error) keys.push('name', 'message');
      for (const key of keys) {
        if (typeof actual[key] === 'string' && isRegExp(expected[key]) && RegExp.prototype.exec.call(expected[key], actual[key]) !== null) continue;
        if (!(key in Object(actual)) || !isDeepStrictEqual(actual[key], expected[key])) {
          throw new AssertionError({ actual: actual, expected: expected, operator: 'deepStrictEqual', stackStartFn: fn, message: message });
        }
      }
      return;
    }
    throw new TypeError('The "expected" argument must be of type function or an instance of Error, RegExp, or Object.');
  }
  /**
   * @param {Function} fn
   * @param {any} expected
   * @param {any} message
   * @param {string} kind
   */
  function missing(fn, expected, message, kind) {
    let details = '';
    if (expected && expected.name) details += ' (' + expected.name + ')';
    details += message ? ': ' + message : '.';
    const fnType = kind === 'rejects' ? 'rejection' : 'exception';
    innerFail({ actual: undefined, expected: expected, operator: kind, message: 'Missing expected ' + fnType + details, stackStartFn: fn });
  }
  /**
   * @param {Function} fn
   * @param {any} expected
   * @param {any} message
   */
  assert.throws = function throws(fn, expected, message) {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    let threw = false, err;
    try { fn(); } catch (/** @type {any} */ e) { threw = true; err = e; }
    if (!threw) missing(throws, expected, message, 'throws');
    checkExpected(err, expected, message, throws);
  };
  /**
   * @param {Function} fn
   * @param {any} expected
   * @param {any} message
   */
  assert.doesNotThrow = function doesNotThrow(fn, expected, message) {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    try { fn(); } catch (/** @type {any} */ e) {
      innerFail({ actual: e, expected: expected, operator: 'doesNotThrow', stackStartFn: doesNotThrow,
        message: 'Got unwanted exception' + (message ? ': ' + message : '.') + '\nActual message: "' + (e && e.message) + '"' });
    }
  };
  /**
   * @param {any} promiseFn
   * @param {any} expected
   * @param {any} message
   */
  assert.rejects = async function rejects(promiseFn, expected, message) {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    let threw = false, err;
    try { await (typeof promiseFn === 'function' ? promiseFn() : promiseFn); } catch (e) { threw = true; err = e; }
    if (!threw) missing(rejects, expected, message, 'rejects');
    checkExpected(err, expected, message, rejects);
  };
  /**
   * @param {any} promiseFn
   * @param {any} expected
   * @param {any} message
   */
  assert.doesNotReject = async function doesNotReject(promiseFn, expected, message) {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    try { await (typeof promiseFn === 'function' ? promiseFn() : promiseFn); } catch (/** @type {any} */ e) {
      innerFail({ actual: e, expected: expected, operator: 'doesNotReject', stackStartFn: doesNotReject,
        message: 'Got unwanted rejection' + (message ? ': ' + message : '.') + '\nActual message: "' + (e && e.message) + '"' });
    }
  };
  /** @param {any} err */
  assert.ifError = function ifError(err) {
    if (err !== null && err !== undefined) {
      let message = 'ifError got unwanted exception: ';
      message += typeof err === 'object' && typeof err.message === 'string' ? (err.message.length === 0 && err.constructor ? err.constructor.name : err.message) : inspect(err);
      const newErr = new AssertionError({ actual: err, expected: null, operator: 'ifError', message: message, stackStartFn: ifError });
      newErr.generatedMessage = true;
      throw newErr;
    }
  };
  /**
   * @param {any} string
   * @param {any} regexp
   * @param {any} message
   * @param {Function} fn
   * @param {boolean} shouldMatch
   */
  function matchImpl(string, regexp, message, fn, shouldMatch) {
    if (!isRegExp(regexp)) throw new TypeError('The "regexp" argument must be an instance of RegExp.');
    if (typeof string !== 'string' || (RegExp.prototype.exec.call(regexp, string) !== null) !== shouldMatch) {
      if (message instanceof Error) throw message;
      const generated = !message;
      message = message || (typeof string !== 'string'
        ? 'The "string" argument must be of type string. Received type ' + typeof string + ' (' + inspect(string) + ')'
        : (shouldMatch ? 'The input did not match the regular expression ' : 'The input was expected to not match the regular expression ') +
          inspect(regexp) + '. Input:\n\n' + inspect(string) + '\n');
      const err = new AssertionError({ actual: string, expected: regexp, message: message, operator: fn.name, stackStartFn: fn });
      err.generatedMessage = generated;
      throw err;
    }
  }
  /**
   * @param {any} string
   * @param {any} regexp
   * @param {any} message
   */
  assert.match = function match(string, regexp, message) { matchImpl(string, regexp, message, match, true); };
  /**
   * @param {any} string
   * @param {any} regexp
   * @param {any} message
   */
  assert.doesNotMatch = function doesNotMatch(string, regexp, message) { matchImpl(string, regexp, message, doesNotMatch, false); };
  return assert;
}
