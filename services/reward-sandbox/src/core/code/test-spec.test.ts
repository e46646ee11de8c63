import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { parseTestSpec } from './test-spec.ts';
import type { TestSpec } from './test-spec.ts';

// Expected inputs/outputs are Python's str(json.loads(...)) of each entry (CPython 3.11), as verl sends them.
const VALID: Array<{ name: string; groundTruth: unknown; spec: TestSpec }> = [
  {
    name: 'stdin/stdout, object',
    groundTruth: { inputs: ['1 2\n', '3 4\n'], outputs: ['3\n', '7\n'] },
    spec: { inputs: ['1 2\n', '3 4\n'], outputs: ['3\n', '7\n'], fn_name: null, assert_case: ['', ''] },
  },
  {
    name: 'stdin/stdout, JSON string',
    groundTruth: '{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}',
    spec: { inputs: ['1 2\n'], outputs: ['3\n'], fn_name: null, assert_case: [''] },
  },
  {
    name: 'odd shapes are rendered with Python str(); JSON null stays null (no stdin / any output)',
    groundTruth: '{"inputs": [[1, 2], "3\\n", null, {"a": 1.0}], "outputs": [3, "x", null, [true]]}',
    spec: { inputs: ['[1, 2]', '3\n', null, "{'a': 1.0}"], outputs: ['3', 'x', null, '[True]'], fn_name: null, assert_case: ['', '', '', ''] },
  },
  {
    name: 'call-based (LiveCodeBench style: one JSON argument per line)',
    groundTruth: { fn_name: 'f', inputs: ['[1, 3]\n2'], outputs: ['[0]'] },
    spec: { inputs: ['[1, 3]\n2'], outputs: ['[0]'], fn_name: 'f', assert_case: [''] },
  },
  {
    name: 'empty or null fn_name means stdin/stdout',
    groundTruth: { fn_name: '', inputs: ['a'], outputs: ['b'] },
    spec: { inputs: ['a'], outputs: ['b'], fn_name: null, assert_case: [''] },
  },
  {
    name: 'assert_case alone: inputs default to "" and outputs to None',
    groundTruth: { fn_name: 'g', assert_case: ['assert g(1) == 1', 'assert g(2) == 2'] },
    spec: { inputs: ['', ''], outputs: [null, null], fn_name: 'g', assert_case: ['assert g(1) == 1', 'assert g(2) == 2'] },
  },
  {
    name: 'assert_case with explicit inputs',
    groundTruth: { inputs: ['x'], assert_case: ['assert True'] },
    spec: { inputs: ['x'], outputs: [null], fn_name: null, assert_case: ['assert True'] },
  },
];

describe('parseTestSpec: valid ground truths', () => {
  it.each(VALID)('$name', ({ groundTruth, spec }) => {
    expect(parseTestSpec(groundTruth)).toEqual(spec);
  });
});

const INVALID: Array<{ name: string; groundTruth: unknown; message: RegExp; maxCases?: number }> = [
  { name: 'not JSON', groundTruth: '{inputs: [1]}', message: /ground_truth is not valid JSON/ },
  { name: 'JSON list', groundTruth: '[1, 2]', message: /ground_truth must be an object/ },
  { name: 'null', groundTruth: null, message: /ground_truth must be an object/ },
  { name: 'number', groundTruth: 3, message: /ground_truth must be an object/ },
  { name: 'missing outputs', groundTruth: { inputs: ['1'] }, message: /ground_truth\.outputs must be an array/ },
  { name: 'missing inputs', groundTruth: { outputs: ['1'] }, message: /ground_truth\.inputs must be an array/ },
  { name: 'inputs as a string', groundTruth: { inputs: 'abc', outputs: ['a', 'b', 'c'] }, message: /ground_truth\.inputs must be an array/ },
  { name: 'no cases', groundTruth: { inputs: [], outputs: [] }, message: /ground_truth\.inputs has no test cases/ },
  { name: 'count mismatch', groundTruth: { inputs: ['1'], outputs: ['1', '2'] }, message: /ground_truth\.outputs has 2 entries for 1 inputs/ },
  { name: 'assert_case not strings', groundTruth: { assert_case: [1] }, message: /ground_truth\.assert_case must be an array of strings/ },
  {
    name: 'assert_case count',
    groundTruth: { inputs: ['', ''], outputs: [null, null], assert_case: ['x'] },
    message: /assert_case has 1 entries for 2 inputs/,
  },
  { name: 'fn_name not a string', groundTruth: '{"fn_name": 3, "inputs": ["1"], "outputs": ["1"]}', message: /ground_truth\.fn_name must be a string/ },
  { name: 'non-JSON entry', groundTruth: { inputs: [undefined], outputs: ['1'] }, message: /ground_truth\.inputs\[0\] is not a JSON value/ },
  {
    name: 'over the case cap',
    groundTruth: { inputs: ['1', '2', '3'], outputs: ['1', '2', '3'] },
    maxCases: 2,
    message: /3 test cases, more than the limit of 2/,
  },
];

describe('parseTestSpec: malformed ground truths', () => {
  it.each(INVALID)('$name', ({ groundTruth, message, maxCases }) => {
    let caught: unknown;
    try {
      parseTestSpec(groundTruth, maxCases === undefined ? {} : { maxCases });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ code: ErrorCode.InvalidGroundTruth, status: 400 });
    expect((caught as AppError).message).toMatch(message);
  });
});
