import { buildCaseProgram } from './case-program.ts';
import type { CaseProgram } from './case-program.ts';
import { MISSING_CODE_BLOCK, extractCode } from './extract.ts';
import { judgeCase } from './judge.ts';
import type { CaseJudgement, CommandOutcome, Verdict } from './judge.ts';
import type { CodeParams } from './params.ts';
import { parseTestSpec } from './test-spec.ts';
import type { TestSpec } from './test-spec.ts';

/** One execution request: the case program plus verl's limits, in SandboxFusion `RunCodeRequest` names. */
export interface ExecRequest extends CaseProgram {
  /** Seconds; verl passes its `timeout` as both compile and run timeout. */
  compile_timeout: number;
  run_timeout: number;
  /** MiB; -1 = the service default. */
  memory_limit_MB: number;
}

/** Runs one program; rejects only when the sandbox itself fails (scored as verl's -1 api error). */
export type ExecuteFn = (request: ExecRequest, signal: AbortSignal | undefined) => Promise<CommandOutcome>;

/** One code item to score. */
export interface CodeScoreInput {
  /** The model's completion (verl `completion` / `solution_str`). */
  solution: string;
  /** `{inputs, outputs, fn_name?}` or `{assert_case}`, as an object or a JSON string. */
  groundTruth: unknown;
  params: CodeParams;
}

/** Service-side limits of {@link scoreCodeItem}. */
export interface ScoreCodeOptions {
  /** Cases of one item executing at once (verl: a thread per case, bounded by a shared semaphore). @default 4 */
  maxParallelCases?: number;
  /** Most cases per item; more is `invalid_ground_truth`. @default 1000 */
  maxCases?: number;
  /** Per-case entries kept in `extra.cases` (counts cover every case). @default 50 */
  maxCaseEntries?: number;
  /** Total budget of the item: once aborted, unstarted cases become verl -1 (api error). */
  signal?: AbortSignal;
}

/** One entry of `extra.cases`. */
export interface CaseEntry extends CaseJudgement {
  index: number;
  /** Run time reported by the sandbox, seconds (null when not run). */
  time_s: number | null;
  compile_time_s: number | null;
  exit_code: number | null;
  /** First characters of stdout/stderr (compile stderr for compile errors), failed cases only. */
  stdout_head?: string;
  stderr_head?: string;
  error?: string;
}

/** Reward and diagnostics of one code item. */
export interface CodeScoreOutcome {
  score: number;
  extra: Record<string, unknown>;
}

// verl compute_score(continuous=True): "pass rate for the first N (e.g., 10) test cases".
const CONTINUOUS_CASES = 10;
const HEAD_CHARS = 256;

function head(s: string | null | undefined): string | undefined {
  return s === null || s === undefined || s === '' ? undefined : s.slice(0, HEAD_CHARS);
}

function notRun(index: number, j: CaseJudgement, error?: string): CaseEntry {
  const entry: CaseEntry = { index, ...j, time_s: null, compile_time_s: null, exit_code: null };
  if (error !== undefined) entry.error = error;
  return entry;
}

// A failed execute() is verl's "api_error" (-1), like a failed request to SandboxFusion.
const API_ERROR = { verdict: 'sandbox_error', verl_result: -1, verl_status: 'api_error' } as const;
/** `error` of the cases not started because `opts.signal` aborted. */
export const BUDGET_EXHAUSTED = 'total time budget exhausted';

async function runCase(
  input: CodeScoreInput,
  code: string,
  spec: TestSpec,
  index: number,
  execute: ExecuteFn,
  signal: AbortSignal | undefined,
): Promise<CaseEntry> {
  if (signal?.aborted === true) return notRun(index, API_ERROR, BUDGET_EXHAUSTED);
  const { timeout, memory_limit_mb, language } = input.params;
  const request: ExecRequest = {
    ...buildCaseProgram(code, spec, index, language),
    compile_timeout: timeout,
    run_timeout: timeout,
    memory_limit_MB: memory_limit_mb,
  };
  let outcome: CommandOutcome;
  try {
    outcome = await execute(request, signal);
  } catch (err) {
    return notRun(index, API_ERROR, err instanceof Error ? err.message : String(err));
  }
  const j = judgeCase(spec.outputs[index] ?? null, outcome);
  const { compile_result: compile, run_result: run } = outcome;
  const entry: CaseEntry = {
    index,
    ...j,
    time_s: run?.execution_time ?? null,
    compile_time_s: compile?.execution_time ?? null,
    exit_code: run?.return_code ?? null,
  };
  if (j.verdict !== 'passed') {
    const stdout = head(run?.stdout);
    const stderr = head(j.verdict === 'compile_error' ? compile?.stderr : run?.stderr);
    if (stdout !== undefined) entry.stdout_head = stdout;
    if (stderr !== undefined) entry.stderr_head = stderr;
  }
  return entry;
}

/**
 * verl sandbox_fusion `compute_score` + `check_correctness`: extract the code, run every case
 * (in order of index, up to `maxParallelCases` at once), judge each as `_process_single_case` does,
 * then mark every case after the first compile error as -4 (`compile_error_skipped`; we do not
 * start them). Score: `continuous` → passed / min(n, 10) over the first 10 cases; otherwise
 * passed / n over all cases (verl's sandbox_fusion never stops early on a failure).
 */
export async function scoreCodeItem(input: CodeScoreInput, execute: ExecuteFn, opts: ScoreCodeOptions = {}): Promise<CodeScoreOutcome> {
  const spec = parseTestSpec(input.groundTruth, opts.maxCases === undefined ? {} : { maxCases: opts.maxCases });
  const total = spec.inputs.length;
  const code = extractCode(input.solution);
  if (code === null) {
    return { score: 0, extra: { error: MISSING_CODE_BLOCK, pass_rate: 0, passed: 0, total, verdicts: {}, cases: [] } };
  }

  const entries: Array<CaseEntry | undefined> = new Array(total);
  let next = 0;
  let firstCompileError = Infinity;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) {
      if (i > firstCompileError) continue;
      const entry = await runCase(input, code, spec, i, execute, opts.signal);
      entries[i] = entry;
      if (entry.verl_result === -4) firstCompileError = Math.min(firstCompileError, i);
    }
  };
  const wanted = Math.floor(opts.maxParallelCases ?? 4);
  const parallel = Number.isFinite(wanted) ? Math.max(1, Math.min(total, wanted)) : 1;
  await Promise.all(Array.from({ length: parallel }, worker));

  const cases: CaseEntry[] = Array.from({ length: total }, (_, i) => {
    const entry = entries[i];
    // check_correctness post-processing: every case after the first compile error is -4.
    if (i > firstCompileError || entry === undefined) {
      return notRun(i, { verdict: 'compile_error', verl_result: -4, verl_status: 'compile_error_skipped' });
    }
    return entry;
  });

  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const c of cases) verdicts[c.verdict] = (verdicts[c.verdict] ?? 0) + 1;
  const passed = verdicts.passed ?? 0;
  const scored = input.params.continuous ? cases.slice(0, CONTINUOUS_CASES) : cases;
  const score = scored.filter((c) => c.verl_result === true).length / scored.length;

  const keep = Math.max(0, opts.maxCaseEntries ?? 50);
  const extra: Record<string, unknown> = {
    pass_rate: passed / total,
    passed,
    total,
    scored_cases: scored.length,
    verdicts,
    cases: cases.slice(0, keep),
  };
  if (total > keep) extra.cases_omitted = total - keep;
  if (cases.some((c) => c.error === BUDGET_EXHAUSTED)) extra.budget_exhausted = true;
  return { score, extra };
}
