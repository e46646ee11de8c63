import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { CommandResult } from '../runner.ts';
import type { CommandOutcome } from './judge.ts';
import { parseCodeParams } from './params.ts';
import { BUDGET_EXHAUSTED, scoreCodeItem } from './score-code.ts';
import type { CaseEntry, ExecRequest, ExecuteFn, ScoreCodeOptions } from './score-code.ts';

function cmd(over: Partial<CommandResult> = {}): CommandResult {
  return { status: 'Finished', execution_time: 0.01, return_code: 0, stdout: '', stderr: '', ...over };
}
const ok = (stdout: string): CommandOutcome => ({ compile_result: null, run_result: cmd({ stdout }) });

/**
 * A deterministic stand-in for the sandbox: the program's behaviour is chosen by marker words in
 * its code. ECHO prints stdin; DOUBLE prints 2*stdin; FAIL_ON_<x> exits 1 when stdin is <x>;
 * ASSERT_FAILS exits 1; SLEEP times out; HOG hits the memory limit; BROKEN fails to compile; DOWN makes the sandbox fail;
 * call-based wrappers of `add` are evaluated like the Python wrapper would.
 */
function fakeSandbox(): { execute: ExecuteFn; calls: ExecRequest[] } {
  const calls: ExecRequest[] = [];
  const execute: ExecuteFn = async (req) => {
    calls.push(req);
    const { code } = req;
    const stdin = req.stdin ?? '';
    if (code.includes('DOWN')) throw new Error('connect ECONNREFUSED');
    if (code.includes('BROKEN')) return { compile_result: cmd({ return_code: 1, stderr: 'error: expected ;' }), run_result: null };
    const failOn = [...code.matchAll(/FAIL_ON_(\w+)/g)].map((m) => m[1]);
    if (failOn.includes(stdin)) return { compile_result: null, run_result: cmd({ return_code: 1, stderr: 'Traceback: boom' }) };
    if (code.includes('ASSERT_FAILS')) return { compile_result: null, run_result: cmd({ return_code: 1, stderr: 'AssertionError' }) };
    if (code.includes('SLEEP')) return { compile_result: null, run_result: cmd({ status: 'TimeLimitExceeded', return_code: null }) };
    if (code.includes('HOG')) return { compile_result: null, run_result: cmd({ return_code: 137, memory_limit_exceeded: true }) };
    if (code.includes('_sandbox_call_target("add")')) {
      const args = stdin.split('\n').map((l) => JSON.parse(l) as number);
      return ok(`${args.reduce((a, b) => a + b, 0)}\n`);
    }
    if (code.includes('ECHO')) return ok(stdin);
    if (code.includes('DOUBLE')) return ok(`${2 * Number(stdin)}\n`);
    return ok('');
  };
  return { execute, calls };
}

const fenced = (body: string): string => `Reasoning...\n\`\`\`python\n${body}\n\`\`\`\nDone.`;
const P = (raw: Record<string, unknown> = {}) => parseCodeParams(raw);

interface Row {
  name: string;
  solution: string;
  groundTruth: unknown;
  params?: Record<string, unknown>;
  opts?: ScoreCodeOptions;
  score: number;
  passRate: number;
  verlResults: Array<CaseEntry['verl_result']>;
  verdicts: Record<string, number>;
  executed: number;
}

const tenPlusTwo = { inputs: Array.from({ length: 12 }, (_, i) => String(i)), outputs: Array.from({ length: 12 }, (_, i) => `${2 * i}`) };

const ROWS: Row[] = [
  {
    name: 'stdin problem, all pass (ground truth as object)',
    solution: fenced('DOUBLE'),
    groundTruth: { inputs: ['1', '2', '3'], outputs: ['2', '4', '6\n'] },
    score: 1,
    passRate: 1,
    verlResults: [true, true, true],
    verdicts: { passed: 3 },
    executed: 3,
  },
  {
    name: 'stdin problem, ground truth as JSON string',
    solution: fenced('DOUBLE'),
    groundTruth: '{"inputs": ["1", "2"], "outputs": ["2", "5"]}',
    score: 0.5,
    passRate: 0.5,
    verlResults: [true, false],
    verdicts: { passed: 1, wrong_answer: 1 },
    executed: 2,
  },
  {
    name: 'output quirks: trailing newlines ignored, trailing space and CRLF are not',
    solution: fenced('ECHO'),
    groundTruth: { inputs: ['a\n\n', 'b ', 'c\r\n', '1.0'], outputs: ['a', 'b', 'c', '1'] },
    score: 0.25,
    passRate: 0.25,
    verlResults: [true, false, false, false],
    verdicts: { passed: 1, wrong_answer: 3 },
    executed: 4,
  },
  {
    name: 'non-string inputs reach stdin as Python str()',
    solution: fenced('ECHO'),
    groundTruth: '{"inputs": [[1, "a"], 2.0, true], "outputs": ["[1, \'a\']", "2.0", "True"]}',
    score: 1,
    passRate: 1,
    verlResults: [true, true, true],
    verdicts: { passed: 3 },
    executed: 3,
  },
  {
    name: 'a crash on one case (verl -2)',
    solution: fenced('FAIL_ON_1 DOUBLE'),
    groundTruth: { inputs: ['1', '2'], outputs: ['2', '4'] },
    score: 0.5,
    passRate: 0.5,
    verlResults: [-2, true],
    verdicts: { runtime_error: 1, passed: 1 },
    executed: 2,
  },
  {
    name: 'timeout',
    solution: fenced('SLEEP'),
    groundTruth: { inputs: ['1'], outputs: ['2'] },
    score: 0,
    passRate: 0,
    verlResults: [-3],
    verdicts: { time_limit: 1 },
    executed: 1,
  },
  {
    name: 'memory limit',
    solution: fenced('HOG'),
    groundTruth: { inputs: ['1'], outputs: ['2'] },
    score: 0,
    passRate: 0,
    verlResults: [-2],
    verdicts: { memory_limit: 1 },
    executed: 1,
  },
  {
    name: 'binary (continuous=false) is the pass rate over ALL cases',
    solution: fenced('FAIL_ON_10 FAIL_ON_11 DOUBLE'),
    groundTruth: tenPlusTwo,
    score: 10 / 12,
    passRate: 10 / 12,
    verlResults: [...Array<true>(10).fill(true), -2, -2],
    verdicts: { passed: 10, runtime_error: 2 },
    executed: 12,
  },
  {
    name: 'continuous=true scores the first 10 cases only (all are still run)',
    solution: fenced('FAIL_ON_10 FAIL_ON_11 DOUBLE'),
    groundTruth: tenPlusTwo,
    params: { continuous: true },
    score: 1,
    passRate: 10 / 12,
    verlResults: [...Array<true>(10).fill(true), -2, -2],
    verdicts: { passed: 10, runtime_error: 2 },
    executed: 12,
  },
  {
    name: 'continuous=true: failures among the first 10',
    solution: fenced('FAIL_ON_0 FAIL_ON_1 DOUBLE'),
    groundTruth: tenPlusTwo,
    params: { continuous: true },
    score: 0.8,
    passRate: 10 / 12,
    verlResults: [-2, -2, ...Array<true>(10).fill(true)],
    verdicts: { passed: 10, runtime_error: 2 },
    executed: 12,
  },
  {
    name: 'no early stop on a wrong answer',
    solution: fenced('DOUBLE'),
    groundTruth: { inputs: ['1', '2', '3'], outputs: ['0', '4', '6'] },
    opts: { maxParallelCases: 1 },
    score: 2 / 3,
    passRate: 2 / 3,
    verlResults: [false, true, true],
    verdicts: { wrong_answer: 1, passed: 2 },
    executed: 3,
  },
  {
    name: 'compile error stops the remaining cases (check_correctness post-processing)',
    solution: '```cpp\nBROKEN\n```',
    params: { language: 'cpp' },
    groundTruth: { inputs: ['1', '2', '3'], outputs: ['2', '4', '6'] },
    opts: { maxParallelCases: 1 },
    score: 0,
    passRate: 0,
    verlResults: [-4, -4, -4],
    verdicts: { compile_error: 3 },
    executed: 1,
  },
  {
    name: 'call-based problem through the wrapper',
    solution: fenced('def add(a, b):\n    return a + b'),
    groundTruth: { fn_name: 'add', inputs: ['1\n2', '5\n5'], outputs: ['3', '11'] },
    score: 0.5,
    passRate: 0.5,
    verlResults: [true, false],
    verdicts: { passed: 1, wrong_answer: 1 },
    executed: 2,
  },
  {
    name: 'assert_case: expected None passes any clean run, a failing assert is -2',
    solution: fenced('def g(x):\n    return x'),
    groundTruth: { fn_name: 'g', assert_case: ['assert g(1) == 1', 'assert g(2) == 3  # ASSERT_FAILS'] },
    score: 0.5,
    passRate: 0.5,
    verlResults: [true, -2],
    verdicts: { passed: 1, runtime_error: 1 },
    executed: 2,
  },
  {
    name: 'sandbox failure is verl -1 (api_error) and counts as not passed',
    solution: fenced('DOWN'),
    groundTruth: { inputs: ['1'], outputs: ['2'] },
    score: 0,
    passRate: 0,
    verlResults: [-1],
    verdicts: { sandbox_error: 1 },
    executed: 1,
  },
  {
    name: 'missing code block scores 0 without running anything',
    solution: 'print(2)',
    groundTruth: { inputs: ['1'], outputs: ['2'] },
    score: 0,
    passRate: 0,
    verlResults: [],
    verdicts: {},
    executed: 0,
  },
];

describe('scoreCodeItem (sandbox_fusion compute_score)', () => {
  it.each(ROWS)('$name', async (row) => {
    const { execute, calls } = fakeSandbox();
    const out = await scoreCodeItem({ solution: row.solution, groundTruth: row.groundTruth, params: P(row.params) }, execute, row.opts);
    expect(out.score).toBeCloseTo(row.score, 12);
    expect(out.extra.pass_rate).toBeCloseTo(row.passRate, 12);
    expect((out.extra.cases as CaseEntry[]).map((c) => c.verl_result)).toEqual(row.verlResults);
    expect(out.extra.verdicts).toEqual(row.verdicts);
    expect(calls).toHaveLength(row.executed);
  });

  it('sends verl limits and the extracted code to the sandbox', async () => {
    const { execute, calls } = fakeSandbox();
    await scoreCodeItem(
      { solution: fenced('DOUBLE'), groundTruth: { inputs: ['4'], outputs: ['8'] }, params: P({ timeout: 3, memory_limit_mb: 256 }) },
      execute,
    );
    expect(calls).toEqual([{ language: 'python', code: '\nDOUBLE\n\n\n', stdin: '4', compile_timeout: 3, run_timeout: 3, memory_limit_MB: 256 }]);
  });

  it('keeps per-case details of failures and marks skipped compile cases', async () => {
    const { execute } = fakeSandbox();
    const params = P({ language: 'cpp' });
    const out = await scoreCodeItem({ solution: '```cpp\nBROKEN\n```', groundTruth: { inputs: ['1', '2'], outputs: ['2', '4'] }, params }, execute, {
      maxParallelCases: 1,
    });
    expect(out.extra.cases).toEqual([
      {
        index: 0,
        verdict: 'compile_error',
        verl_result: -4,
        verl_status: 'compile_error',
        time_s: null,
        compile_time_s: 0.01,
        exit_code: null,
        stderr_head: 'error: expected ;',
      },
      { index: 1, verdict: 'compile_error', verl_result: -4, verl_status: 'compile_error_skipped', time_s: null, compile_time_s: null, exit_code: null },
    ]);
  });

  it('a compile error after passing cases keeps the earlier results', async () => {
    const { execute } = fakeSandbox();
    const byStdin: ExecuteFn = (req, signal) => (req.stdin === '3' ? execute({ ...req, code: 'BROKEN' }, signal) : execute(req, signal));
    const out = await scoreCodeItem(
      { solution: fenced('DOUBLE'), groundTruth: { inputs: ['1', '2', '3', '4', '5'], outputs: ['2', '4', '6', '8', '10'] }, params: P() },
      byStdin,
      { maxParallelCases: 2 },
    );
    expect((out.extra.cases as CaseEntry[]).map((c) => c.verl_status)).toEqual([
      'success',
      'success',
      'compile_error',
      'compile_error_skipped',
      'compile_error_skipped',
    ]);
    expect(out.score).toBeCloseTo(0.4, 12);
  });

  it('runs cases concurrently up to maxParallelCases and reports them in order', async () => {
    let inFlight = 0;
    let peak = 0;
    const execute: ExecuteFn = async (req) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // Later cases finish first.
      await new Promise((r) => setTimeout(r, 10 - Number(req.stdin)));
      inFlight--;
      return ok(`${req.stdin}\n`);
    };
    const inputs = ['0', '1', '2', '3', '4', '5', '6'];
    const out = await scoreCodeItem({ solution: fenced('ECHO'), groundTruth: { inputs, outputs: inputs }, params: P() }, execute, { maxParallelCases: 3 });
    expect(peak).toBe(3);
    expect((out.extra.cases as CaseEntry[]).map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(out.score).toBe(1);
  });

  it('caps the per-case entries but counts every case', async () => {
    const { execute } = fakeSandbox();
    const out = await scoreCodeItem({ solution: fenced('DOUBLE'), groundTruth: tenPlusTwo, params: P() }, execute, { maxCaseEntries: 2 });
    expect(out.extra).toMatchObject({ total: 12, passed: 12, verdicts: { passed: 12 }, cases_omitted: 10 });
    expect(out.extra.cases).toHaveLength(2);
  });

  it('once the total budget is exhausted, unstarted cases are api errors', async () => {
    const controller = new AbortController();
    const { execute, calls } = fakeSandbox();
    const aborting: ExecuteFn = async (req, signal) => {
      const res = await execute(req, signal);
      controller.abort();
      return res;
    };
    const out = await scoreCodeItem({ solution: fenced('DOUBLE'), groundTruth: { inputs: ['1', '2', '3'], outputs: ['2', '4', '6'] }, params: P() }, aborting, {
      maxParallelCases: 1,
      signal: controller.signal,
    });
    expect(calls).toHaveLength(1);
    expect((out.extra.cases as CaseEntry[]).map((c) => [c.verl_result, c.error])).toEqual([
      [true, undefined],
      [-1, BUDGET_EXHAUSTED],
      [-1, BUDGET_EXHAUSTED],
    ]);
    expect(out.extra.budget_exhausted).toBe(true);
    expect(out.score).toBeCloseTo(1 / 3, 12);
  });

  it('rejects malformed ground truths before running anything', async () => {
    const { execute, calls } = fakeSandbox();
    const run = scoreCodeItem({ solution: fenced('ECHO'), groundTruth: '{"inputs": ["1"]}', params: P() }, execute);
    await expect(run).rejects.toBeInstanceOf(AppError);
    await expect(run).rejects.toMatchObject({ code: ErrorCode.InvalidGroundTruth, status: 400 });
    expect(calls).toHaveLength(0);
  });
});
