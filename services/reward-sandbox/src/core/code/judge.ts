import type { CommandResult } from '../runner.ts';

/** What a runner reports for one program (the compile/run part of SandboxFusion `RunCodeResponse`). */
export interface CommandOutcome {
  compile_result: CommandResult | null;
  run_result: CommandResult | null;
}

/** Our verdict for one case. */
export type Verdict = 'passed' | 'wrong_answer' | 'runtime_error' | 'time_limit' | 'memory_limit' | 'compile_error' | 'sandbox_error';

/** verl's per-case result: True / False / -1 api or sandbox error / -2 runtime / -3 timeout / -4 compile. */
export type VerlResult = boolean | -1 | -2 | -3 | -4;

/** The judgement of one case. */
export interface CaseJudgement {
  verdict: Verdict;
  /** What verl's `check_correctness` puts in its results list for this case. */
  verl_result: VerlResult;
  /** verl's `metadata["status"]` (`success`, `wrong_answer`, `compile_timeout`, `unknown_failure`, ...). */
  verl_status: string;
}

/** SandboxFusion's response status. */
export type FusionStatus = 'Success' | 'Failed' | 'SandboxError';

/** SandboxFusion `parse_run_status`: an Error command is SandboxError; a time limit or non-zero return code is Failed. */
export function fusionStatus(outcome: CommandOutcome): FusionStatus {
  const commands = [outcome.compile_result, outcome.run_result].filter((c) => c !== null);
  if (commands.some((c) => c.status === 'Error')) return 'SandboxError';
  if (commands.some((c) => c.status === 'TimeLimitExceeded' || (c.return_code !== null && c.return_code !== 0))) return 'Failed';
  return 'Success';
}

/** Python `s.rstrip("\n")`: only newlines, not spaces or "\r". */
function rstripNewlines(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 10) end--;
  return s.slice(0, end);
}

/**
 * verl sandbox_fusion `_process_single_case` output check: passes when `expected` is None, or when
 * `str(stdout).rstrip("\n") == str(expected).rstrip("\n")` — exact otherwise (trailing spaces, "\r\n",
 * float formatting and JSON vs Python spelling all matter; no prime_code-style tolerance).
 */
export function outputMatches(expected: string | null, stdout: string | null): boolean {
  return expected === null || rstripNewlines(stdout ?? '') === rstripNewlines(expected);
}

function j(verdict: Verdict, verl_result: VerlResult, verl_status: string): CaseJudgement {
  return { verdict, verl_result, verl_status };
}

/** verl sandbox_fusion `_process_single_case` status logic, applied to our runner's outcome. */
export function judgeCase(expected: string | null, outcome: CommandOutcome): CaseJudgement {
  const { compile_result: compile, run_result: run } = outcome;
  const status = fusionStatus(outcome);
  if (status === 'SandboxError') return j('sandbox_error', -1, 'sandbox_error');
  if (status === 'Failed') {
    // `compile_result.get("return_code") != 0` is also true for a null return code.
    if (compile !== null && (compile.status !== 'Finished' || compile.return_code !== 0)) {
      return compile.status === 'TimeLimitExceeded' ? j('compile_error', -4, 'compile_timeout') : j('compile_error', -4, 'compile_error');
    }
    if (run === null) return j('sandbox_error', -1, 'unknown_failure_state');
    if (run.status === 'TimeLimitExceeded') return j('time_limit', -3, 'timeout');
    if (run.status === 'Error' || run.return_code !== 0) {
      // verl has no memory verdict: a run killed by the memory limit is a runtime error (-2).
      return run.memory_limit_exceeded === true ? j('memory_limit', -2, 'runtime_error') : j('runtime_error', -2, 'runtime_error');
    }
    return j('sandbox_error', -1, 'unknown_failure');
  }
  if (run === null || run.status !== 'Finished') return j('sandbox_error', -1, 'unexpected_success_state');
  return outputMatches(expected, run.stdout) ? j('passed', true, 'success') : j('wrong_answer', false, 'wrong_answer');
}
