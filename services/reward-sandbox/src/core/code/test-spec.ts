import { AppError, ErrorCode, parseJsonForPython, pyStr } from '@rl/service-kit/core';

/** Test cases of one problem, with inputs/outputs already rendered as Python `str()`. */
export interface TestSpec {
  /** stdin of each case (`str(input)`), null when the input is JSON null (no stdin). */
  inputs: Array<string | null>;
  /** `str(expected)` of each case; null means "any successful run passes" (verl `expected_output is None`). */
  outputs: Array<string | null>;
  /** Call-based problems: the function (or `Solution` method) to call; null for stdin/stdout. */
  fn_name: string | null;
  /** Code appended to the solution for each case (`assert_case`, "" when absent). */
  assert_case: string[];
}

/** Options of {@link parseTestSpec}. */
export interface ParseTestSpecOptions {
  /** Most cases accepted; larger specs are rejected (verl has no cap). */
  maxCases?: number;
}

/** Default {@link ParseTestSpecOptions.maxCases}. */
export const DEFAULT_MAX_CASES = 1000;

function invalid(message: string): AppError {
  return new AppError(ErrorCode.InvalidGroundTruth, message);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function render(values: unknown[], field: string): Array<string | null> {
  return values.map((v, i) => {
    if (v === null) return null;
    try {
      return pyStr(v);
    } catch {
      throw invalid(`ground_truth.${field}[${i}] is not a JSON value`);
    }
  });
}

/**
 * Reads a ground truth the way verl's sandbox_fusion `compute_score` + `check_correctness` do:
 * a dict or a JSON string; `assert_case: [...]` defaults `inputs` to "" and `outputs` to None;
 * otherwise `inputs` and `outputs` are required, equally long (and as long as `assert_case`).
 * Where verl would score 0.0 (bad JSON, missing keys, count mismatch, no cases) we reject with
 * `invalid_ground_truth` instead, naming the field.
 */
export function parseTestSpec(groundTruth: unknown, options: ParseTestSpecOptions = {}): TestSpec {
  let gt = groundTruth;
  if (typeof gt === 'string') {
    try {
      gt = parseJsonForPython(gt);
    } catch (err) {
      throw invalid(`ground_truth is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (!isPlainObject(gt)) throw invalid('ground_truth must be an object with "inputs" and "outputs" (or "assert_case")');

  let assertCase: string[] | null = null;
  if (gt.assert_case !== undefined) {
    const ac = gt.assert_case;
    if (!Array.isArray(ac) || !ac.every((a) => typeof a === 'string')) throw invalid('ground_truth.assert_case must be an array of strings');
    assertCase = ac;
  }
  // compute_score: test_cases.setdefault("inputs", [""...]) / setdefault("outputs", [None...]).
  const inputs = gt.inputs === undefined && assertCase !== null ? assertCase.map(() => '') : gt.inputs;
  const outputs = gt.outputs === undefined && assertCase !== null ? assertCase.map(() => null) : gt.outputs;
  if (!Array.isArray(inputs)) throw invalid('ground_truth.inputs must be an array');
  if (!Array.isArray(outputs)) throw invalid('ground_truth.outputs must be an array');
  if (inputs.length === 0) throw invalid('ground_truth.inputs has no test cases');
  if (inputs.length !== outputs.length) {
    throw invalid(`ground_truth.outputs has ${outputs.length} entries for ${inputs.length} inputs`);
  }
  if (assertCase !== null && assertCase.length !== inputs.length) {
    throw invalid(`ground_truth.assert_case has ${assertCase.length} entries for ${inputs.length} inputs`);
  }
  const maxCases = options.maxCases ?? DEFAULT_MAX_CASES;
  if (inputs.length > maxCases) throw invalid(`ground_truth.inputs has ${inputs.length} test cases, more than the limit of ${maxCases}`);

  // `if fn_name and language == "python"`: null and "" mean stdin/stdout.
  const fn = gt.fn_name;
  if (fn !== undefined && fn !== null && typeof fn !== 'string') throw invalid('ground_truth.fn_name must be a string');

  return {
    inputs: render(inputs, 'inputs'),
    outputs: render(outputs, 'outputs'),
    fn_name: typeof fn === 'string' && fn !== '' ? fn : null,
    assert_case: assertCase ?? inputs.map(() => ''),
  };
}
