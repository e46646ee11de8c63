import { describe, expect, it } from 'vitest';
import type { CommandResult } from '../runner.ts';
import { fusionStatus, judgeCase, outputMatches } from './judge.ts';
import type { CaseJudgement, CommandOutcome } from './judge.ts';

function cmd(over: Partial<CommandResult> = {}): CommandResult {
  return { status: 'Finished', execution_time: 0.05, return_code: 0, stdout: '', stderr: '', ...over };
}
function outcome(run: CommandResult | null, compile: CommandResult | null = null): CommandOutcome {
  return { compile_result: compile, run_result: run };
}

const CASES: Array<{ name: string; expected: string | null; outcome: CommandOutcome; want: CaseJudgement }> = [
  { name: 'exact match', expected: '3\n', outcome: outcome(cmd({ stdout: '3\n' })), want: { verdict: 'passed', verl_result: true, verl_status: 'success' } },
  {
    name: 'trailing newlines on either side are ignored',
    expected: '3',
    outcome: outcome(cmd({ stdout: '3\n\n' })),
    want: { verdict: 'passed', verl_result: true, verl_status: 'success' },
  },
  {
    name: 'trailing space is not',
    expected: '3',
    outcome: outcome(cmd({ stdout: '3 \n' })),
    want: { verdict: 'wrong_answer', verl_result: false, verl_status: 'wrong_answer' },
  },
  {
    name: 'CRLF is not',
    expected: '3\n',
    outcome: outcome(cmd({ stdout: '3\r\n' })),
    want: { verdict: 'wrong_answer', verl_result: false, verl_status: 'wrong_answer' },
  },
  {
    name: 'leading newline is not',
    expected: '3',
    outcome: outcome(cmd({ stdout: '\n3' })),
    want: { verdict: 'wrong_answer', verl_result: false, verl_status: 'wrong_answer' },
  },
  {
    name: 'no float tolerance',
    expected: '0.5',
    outcome: outcome(cmd({ stdout: '0.50\n' })),
    want: { verdict: 'wrong_answer', verl_result: false, verl_status: 'wrong_answer' },
  },
  {
    name: 'Python str vs JSON spelling differs',
    expected: '[True]',
    outcome: outcome(cmd({ stdout: '[true]\n' })),
    want: { verdict: 'wrong_answer', verl_result: false, verl_status: 'wrong_answer' },
  },
  {
    name: 'expected None: any successful run passes',
    expected: null,
    outcome: outcome(cmd({ stdout: 'whatever' })),
    want: { verdict: 'passed', verl_result: true, verl_status: 'success' },
  },
  {
    name: 'null stdout compares as ""',
    expected: '',
    outcome: outcome(cmd({ stdout: null })),
    want: { verdict: 'passed', verl_result: true, verl_status: 'success' },
  },
  {
    name: 'non-zero exit',
    expected: '3',
    outcome: outcome(cmd({ return_code: 1, stdout: '3' })),
    want: { verdict: 'runtime_error', verl_result: -2, verl_status: 'runtime_error' },
  },
  {
    name: 'run time limit',
    expected: '3',
    outcome: outcome(cmd({ status: 'TimeLimitExceeded', return_code: null })),
    want: { verdict: 'time_limit', verl_result: -3, verl_status: 'timeout' },
  },
  {
    name: 'memory limit (verl: runtime error)',
    expected: '3',
    outcome: outcome(cmd({ return_code: 137, memory_limit_exceeded: true })),
    want: { verdict: 'memory_limit', verl_result: -2, verl_status: 'runtime_error' },
  },
  {
    name: 'compile error',
    expected: '3',
    outcome: outcome(null, cmd({ return_code: 1, stderr: 'error: x' })),
    want: { verdict: 'compile_error', verl_result: -4, verl_status: 'compile_error' },
  },
  {
    name: 'compile timeout',
    expected: '3',
    outcome: outcome(null, cmd({ status: 'TimeLimitExceeded', return_code: null })),
    want: { verdict: 'compile_error', verl_result: -4, verl_status: 'compile_timeout' },
  },
  {
    name: 'compiled then wrong',
    expected: '3',
    outcome: outcome(cmd({ stdout: '4' }), cmd()),
    want: { verdict: 'wrong_answer', verl_result: false, verl_status: 'wrong_answer' },
  },
  {
    name: 'compiled then crashed',
    expected: '3',
    outcome: outcome(cmd({ return_code: 139 }), cmd()),
    want: { verdict: 'runtime_error', verl_result: -2, verl_status: 'runtime_error' },
  },
  {
    name: 'sandbox Error status',
    expected: '3',
    outcome: outcome(cmd({ status: 'Error', return_code: null, stderr: 'bwrap failed' })),
    want: { verdict: 'sandbox_error', verl_result: -1, verl_status: 'sandbox_error' },
  },
  {
    name: 'Success without run_result',
    expected: '3',
    outcome: outcome(null, cmd()),
    want: { verdict: 'sandbox_error', verl_result: -1, verl_status: 'unexpected_success_state' },
  },
  {
    name: 'nothing at all',
    expected: '3',
    outcome: outcome(null),
    want: { verdict: 'sandbox_error', verl_result: -1, verl_status: 'unexpected_success_state' },
  },
  {
    name: 'compile rc null while the run failed: verl `None != 0` calls it a compile error',
    expected: '3',
    outcome: outcome(cmd({ return_code: 1 }), cmd({ return_code: null })),
    want: { verdict: 'compile_error', verl_result: -4, verl_status: 'compile_error' },
  },
];

describe('judgeCase (sandbox_fusion _process_single_case)', () => {
  it.each(CASES)('$name', ({ expected, outcome: o, want }) => {
    expect(judgeCase(expected, o)).toEqual(want);
  });
});

describe('fusionStatus (SandboxFusion parse_run_status)', () => {
  it.each<[CommandOutcome, string]>([
    [outcome(cmd()), 'Success'],
    [outcome(cmd({ return_code: 2 })), 'Failed'],
    [outcome(cmd({ status: 'TimeLimitExceeded', return_code: null })), 'Failed'],
    [outcome(cmd({ return_code: 1 }), cmd({ status: 'Error' })), 'SandboxError'],
    [outcome(cmd({ return_code: null })), 'Success'],
  ])('%j -> %s', (o, want) => {
    expect(fusionStatus(o)).toBe(want);
  });
});

describe('outputMatches', () => {
  it('strips only "\\n" at the end', () => {
    expect(outputMatches('a\n', 'a')).toBe(true);
    expect(outputMatches('a', 'a\r')).toBe(false);
    expect(outputMatches('a\n\nb', 'a\nb')).toBe(false);
  });
});
