import { AppError, ErrorCode } from '@rl/service-kit';
import type { Executor } from './core/executor.ts';
import { sandboxErrorResponse, toRunCodeResponse, toRunSpec, type RunDefaults } from './core/fusion.ts';
import type { RunCodeRequest, RunCodeResponse } from './schemas.ts';

/**
 * `POST /run_code` / `sandbox.run_code`: one SandboxFusion request. Bad input
 * and overload are AppErrors (the edges turn them into 4xx and 504); a failure
 * of the sandbox itself is answered as SandboxFusion does, status SandboxError.
 */
export async function runCode(executor: Executor, defaults: RunDefaults, req: RunCodeRequest, signal?: AbortSignal): Promise<RunCodeResponse> {
  const spec = toRunSpec(req, defaults);
  try {
    return toRunCodeResponse(await executor.run(spec, signal));
  } catch (err) {
    if (err instanceof AppError && err.code !== ErrorCode.Internal) throw err;
    return sandboxErrorResponse(`sandbox failure: ${err instanceof Error ? err.message : String(err)}`);
  }
}
