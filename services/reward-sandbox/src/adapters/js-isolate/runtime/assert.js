// @ts-check
// In-isolate `node:assert`: AssertionError and the assert functions, with failure
// messages following lib/internal/assert/assertion_error.js closely enough for
// graders that look for "AssertionError" and a non-zero exit code.

import { isDeepEqual, isDeepStrictEqual } from './compare.js';
import { isRegExp } from './inspect-types.js';
import { BACKTICK, inspect } from './inspect.js';
import { callSiteSource } from './process.js';

// ---- AssertionError -------------------------------------------------------------

const assertInspectOptions = {
  compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity,
  showHidden: false, showProxy: false, sorted: true, getters: true,
};
/** @param {any} v */
function inspectForAssert(v) { return inspect(v, assertInspectOptions); }

/**
 * @param {string[]} actualLines
 * @param {string[]} expectedLines
 */
function lineDiff(actualLines, expectedLines) {
  // Plain LCS diff; inputs are capped so a huge structure cannot stall the isolate.
  const n = actualLines.length, m = expectedLines.length;
  if (n * m > 250000) {
    return actualLines.map(function (l) { return '+ ' + l; }).concat(expectedLines.map(function (l) { return '- ' + l; }));
  }
  /** @type {any[]} rows of Int32Array, only indexed within bounds */
  const dp = [];
  for (let i = 0; i <= n; i++) dp.push(new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i][j] = actualLines[i] === expectedLines[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const out = [];
  /** @type {string[]} */
  let plus = [];
  /** @type {string[]} */
  let minus = [];
  function flush() { for (const l of plus) out.push(l); for (const l of minus) out.push(l); plus = []; minus = []; }
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (actualLines[i] === expectedLines[j]) { flush(); out.push('  ' + actualLines[i]); i++; j++; }
    else if (dp[i + 1][j] >= dp[i][j + 1]) { plus.push('+ ' + actualLines[i]); i++; }
    else { minus.push('- ' + expectedLines[j]); j++; }
  }
  while (i < n) plus.push('+ ' + actualLines[i++]);
  while (j < m) minus.push('- ' + expectedLines[j++]);
  flush();
  return out;
}

const kReadableOperator = {
  deepStrictEqual: 'Expected values to be strictly deep-equal:',
  strictEqual: 'Expected values to be strictly equal:',
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: 'Expected values to be loosely deep-equal:',
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: 'Values identical but not reference-equal:',
  notDeepEqualUnequal: 'Expected values not to be loosely deep-equal:',
};

/**
 * @param {any} actual
 * @param {any} expected
 * @param {string | undefined} operator
 * @param {string} [userMessage]
 */
function generatedAssertMessage(actual, expected, operator, userMessage) {
  const a = inspectForAssert(actual);
  const e = inspectForAssert(expected);
  const simple = (typeof actual !== 'object' || actual === null) && (typeof expected !== 'object' || expected === null) &&
    !a.includes('\n') && !e.includes('\n');
  if (operator === 'deepStrictEqual' || operator === 'strictEqual') {
    if (simple && (operator === 'strictEqual' || typeof actual !== 'function')) {
      return (userMessage !== undefined ? userMessage : kReadableOperator[operator]) + '\n\n' + a + ' !== ' + e + '\n';
    }
    if (operator === 'strictEqual' && a === e && typeof actual === 'object' && actual !== null) {
      return 'Values have same structure but are not reference-equal:\n\n' + a + '\n';
    }
    const diff = lineDiff(a.split('\n'), e.split('\n'));
    return kReadableOperator[operator] + '\n+ actual - expected\n\n' + diff.join('\n') + '\n';
  }
  if (operator === 'notDeepStrictEqual' || operator === 'notStrictEqual') {
    if (!a.includes('\n') && (typeof actual !== 'object' || actual === null)) return kReadableOperator[operator] + ' ' + a;
    return kReadableOperator[operator] + '\n\n' + a + '\n';
  }
  if (operator === 'notDeepEqual') return kReadableOperator[operator] + '\n\n' + a;
  if (operator === 'deepEqual') return kReadableOperator.deepEqual + '\n\n' + a + '\n\nshould loosely deep-equal\n\n' + e;
  return a + ' ' + operator + ' ' + e;
}

class AssertionError extends Error {
  /** @param {any} options */
  constructor(options) {
    if (typeof options !== 'object' || options === null) throw new TypeError('The "options" argument must be of type object.');
    const message = options.message;
    const operator = options.operator;
    let text;
    if (message != null) {
      text = String(message);
      if (operator === 'strictEqual' || operator === 'deepStrictEqual') {
        const a = options.actual, e = options.expected;
        if ((typeof a !== 'object' || a === null) && (typeof e !== 'object' || e === null) && operator === 'strictEqual') {
          text = generatedAssertMessage(a, e, operator, text);
        }
      }
    } else {
      text = generatedAssertMessage(options.actual, options.expected, operator);
    }
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(text);
    Error.stackTraceLimit = limit;
    // Node captures the stack while the name reads "AssertionError [ERR_ASSERTION]".
    Object.defineProperty(this, 'name', { value: 'AssertionError [ERR_ASSERTION]', enumerable: false, writable: true, configurable: true });
    Error.captureStackTrace(this, options.stackStartFn || options.stackStartFunction || AssertionError);
    this.stack;
    delete /** @type {{ name?: string }} */ (this).name;
    this.generatedMessage = message == null;
    this.code = 'ERR_ASSERTION';
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = operator;
    this.diff = options.diff === undefined ? 'simple' : options.diff;
  }
  /** @override */
  toString() { return this.name + ' [' + this.code + ']: ' + this.message; }
}
Object.defineProperty(AssertionError.prototype, 'name', { value: 'AssertionError', writable: true, configurable: true, enumerable: false });

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
