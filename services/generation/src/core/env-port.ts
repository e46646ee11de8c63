/**
 * The outside world tools and interactions talk to, behind one interface so unit
 * tests use fakes and the service wires NATS (`reward.rules.score`, `sandbox.run_code`).
 */

/** One item of the shared scoring contract (`ScoreItem` of `reward.rules.score`). */
export interface ScoreItem {
  data_source: string;
  solution_str: string;
  ground_truth: unknown;
  extra_info?: Record<string, unknown> | null;
  params?: Record<string, unknown>;
}

/** One slot of a scoring reply: a score or an error. */
export type ScoreResult = { score: number; extra?: Record<string, unknown> } | { error: { code: string; message: string } };

/** SandboxFusion `RunCodeRequest` (the fields verl's sandbox tool sends). */
export interface RunCodeRequest {
  code: string;
  language: string;
  stdin: string | null;
  compile_timeout: number;
  run_timeout: number;
  memory_limit_MB: number;
  files: Record<string, string | null>;
  fetch_files: string[];
}

/** The parts of SandboxFusion's `RunCodeResponse` a tool reads. */
export interface RunCodeResponse {
  status: string;
  message: string;
  run_result: { status: string; stdout: string | null; stderr: string | null; return_code: number | null } | null;
  compile_result: { status: string; stdout: string | null; stderr: string | null; return_code: number | null } | null;
}

/** Deadline and cancellation of one port call. */
export interface PortCall {
  signal: AbortSignal;
  timeoutMs: number;
}

/** Scoring and code execution, as other services provide them. */
export interface EnvPort {
  score(items: ScoreItem[], call: PortCall): Promise<ScoreResult[]>;
  runCode(req: RunCodeRequest, call: PortCall): Promise<RunCodeResponse>;
}
