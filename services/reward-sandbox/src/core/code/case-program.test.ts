import { describe, expect, it } from 'vitest';
import { buildCaseProgram, callBasedWrapper } from './case-program.ts';
import type { TestSpec } from './test-spec.ts';

const STDIN_SPEC: TestSpec = { inputs: ['1 2\n', null], outputs: ['3', null], fn_name: null, assert_case: ['', ''] };
const CALL_SPEC: TestSpec = { inputs: ['[1, 3]\n2'], outputs: ['[0]'], fn_name: 'solve', assert_case: [''] };
const ASSERT_SPEC: TestSpec = { inputs: [''], outputs: [null], fn_name: 'g', assert_case: ['assert g(1) == 1'] };

describe('buildCaseProgram (sandbox_fusion check_correctness + _process_single_case)', () => {
  it('stdin problems: the code plus "\\n\\n", stdin is the case input', () => {
    expect(buildCaseProgram('print(3)', STDIN_SPEC, 0, 'python')).toEqual({ language: 'python', code: 'print(3)\n\n', stdin: '1 2\n' });
  });

  it('a null input means no stdin at all', () => {
    expect(buildCaseProgram('x', STDIN_SPEC, 1, 'cpp')).toEqual({ language: 'cpp', code: 'x\n\n', stdin: null });
  });

  it('call-based python cases are wrapped; stdin stays the JSON argument lines', () => {
    const p = buildCaseProgram('def solve(a, b):\n    return 0', CALL_SPEC, 0, 'python');
    expect(p.stdin).toBe('[1, 3]\n2');
    expect(p.code).toBe(callBasedWrapper('def solve(a, b):\n    return 0\n\n', 'solve'));
  });

  it('fn_name is ignored for other languages', () => {
    expect(buildCaseProgram('int main(){}', CALL_SPEC, 0, 'cpp').code).toBe('int main(){}\n\n');
  });

  it('assert_case is appended to the solution before wrapping', () => {
    const p = buildCaseProgram('def g(x):\n    return x', ASSERT_SPEC, 0, 'python');
    expect(p.code).toContain('def g(x):\n    return x\n\nassert g(1) == 1\n');
    expect(p.stdin).toBe('');
  });
});

describe('callBasedWrapper', () => {
  const w = callBasedWrapper('USER_CODE', 'my"fn');

  it('star-imports the modules verl does, in its order, before the user code', () => {
    const lines = w.split('\n');
    expect(lines.slice(0, 4)).toEqual(['import traceback', 'from string import *', 'from re import *', 'from datetime import *']);
    expect(lines).toContain('from builtins import *');
    expect(lines.indexOf('from builtins import *')).toBeLessThan(lines.indexOf('from typing import *'));
    expect(lines.indexOf('from json import *')).toBeLessThan(lines.indexOf('from builtins import *'));
    expect(lines.indexOf('import json')).toBeLessThan(lines.indexOf('USER_CODE'));
  });

  it('parses every stdin line as one JSON argument, looks up a global then Solution()', () => {
    expect(w).toContain("_sandbox_text.split('\\n')");
    expect(w).toContain('json.loads(_sandbox_line)');
    expect(w).toContain("getattr(globals()['Solution'](), _sandbox_name)");
  });

  it('prints json.dumps for dict/list/tuple/None/bool, str() otherwise', () => {
    expect(w).toContain('print(json.dumps(_sandbox_result))');
    expect(w).toContain('print(str(_sandbox_result))');
  });

  it('quotes the function name as a string literal', () => {
    expect(w).toContain('_sandbox_call_target("my\\"fn")');
  });
});
