import type { TestSpec } from './test-spec.ts';

/** One program to run for one test case. */
export interface CaseProgram {
  language: string;
  code: string;
  /** null: no stdin at all (verl sends `None` for a JSON-null input). */
  stdin: string | null;
}

// The names verl's wrapper star-imports before the user's code, in its order: solutions
// may use them without importing (`List`, `defaultdict`, `sqrt`, `heappush`, ...), and the
// order decides which module wins a shadowed name (`builtins` restores `pow`, `open`, ...).
const STAR_MODULES = [
  'string',
  're',
  'datetime',
  'collections',
  'heapq',
  'bisect',
  'copy',
  'math',
  'random',
  'statistics',
  'itertools',
  'functools',
  'operator',
  'io',
  'sys',
  'json',
  'builtins',
  'typing',
];
const PLAIN_MODULES = [
  'string',
  're',
  'datetime',
  'collections',
  'heapq',
  'bisect',
  'copy',
  'math',
  'random',
  'statistics',
  'itertools',
  'functools',
  'operator',
  'io',
  'sys',
  'json',
];

const PRELUDE = ['import traceback', ...STAR_MODULES.map((m) => `from ${m} import *`), ...PLAIN_MODULES.map((m) => `import ${m}`)].join('\n');

// Behaviour of verl's `_execute_user_function` + `__main__` block (sandbox_fusion/utils.py):
// - stdin, when not blank, is split on "\n" and EVERY line is json.loads-ed into one positional
//   argument (so a trailing newline makes an empty line and a JSON error);
// - the callable is a global named fn_name, else `Solution().<fn_name>`;
// - a JSON error, a missing callable or an exception in the call writes to stderr, prints
//   nothing and exits 0 (the case then fails as a wrong answer, not a runtime error);
// - dict/list/tuple/None/bool results print as json.dumps, everything else as str(); a
//   json.dumps failure is uncaught (exit 1, runtime error).
const RUNNER = `
def _sandbox_call_target(_sandbox_name):
    _sandbox_text = sys.stdin.read()
    _sandbox_args = []
    if _sandbox_text.strip():
        try:
            _sandbox_args = [json.loads(_sandbox_line) for _sandbox_line in _sandbox_text.split('\\n')]
        except json.JSONDecodeError as _sandbox_err:
            sys.stderr.write(f"WrapperError: arguments of {_sandbox_name!r} are not JSON lines: {_sandbox_err}\\n")
            return None, True
    try:
        _sandbox_fn = None
        if _sandbox_name in globals():
            _sandbox_fn = globals()[_sandbox_name]
        elif 'Solution' in globals():
            _sandbox_fn = getattr(globals()['Solution'](), _sandbox_name)
        if not _sandbox_fn:
            sys.stderr.write(f"WrapperError: no function or Solution method named {_sandbox_name!r}\\n")
            return None, True
        return _sandbox_fn(*_sandbox_args), False
    except Exception:
        sys.stderr.write(f"WrapperError: calling {_sandbox_name!r} failed:\\n{traceback.format_exc()}\\n")
        return None, True
`;

const PRINTER = `
    if not _sandbox_failed:
        if isinstance(_sandbox_result, (dict, list, tuple)) or _sandbox_result is None or isinstance(_sandbox_result, bool):
            print(json.dumps(_sandbox_result))
        else:
            print(str(_sandbox_result))
`;

/** The Python program verl's sandbox_fusion `_process_single_case` runs for a call-based (`fn_name`) case. */
export function callBasedWrapper(code: string, fnName: string): string {
  // JSON.stringify yields a valid Python string literal (verl pastes the name raw between quotes).
  const call = `    _sandbox_result, _sandbox_failed = _sandbox_call_target(${JSON.stringify(fnName)})`;
  return `${PRELUDE}\n\n${code}\n${RUNNER}\nif __name__ == '__main__':\n${call}${PRINTER}`;
}

/**
 * The program for case `caseIndex` (sandbox_fusion `check_correctness` + `_process_single_case`):
 * code is `solution + "\n\n" + assert_case[i]`; python call-based cases wrap it; stdin is `str(input)`.
 */
export function buildCaseProgram(code: string, spec: TestSpec, caseIndex: number, language: string): CaseProgram {
  const generation = `${code}\n\n${spec.assert_case[caseIndex] ?? ''}`;
  const program = spec.fn_name !== null && language === 'python' ? callBasedWrapper(generation, spec.fn_name) : generation;
  return { language, code: program, stdin: spec.inputs[caseIndex] ?? null };
}
