import { pyStr } from '@rl/service-kit/core';
import type { EnvPort } from '../env-port.ts';
import type { Tool, ToolSchema } from './tool.ts';

/** verl's default schema of `code_interpreter` (sandbox_fusion_tool_config.yaml). */
export const CODE_INTERPRETER_SCHEMA: ToolSchema = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'A tool for executing code.',
    parameters: { type: 'object', properties: { code: { type: 'string', description: 'The code to execute.' } }, required: ['code'] },
  },
};

/** `config` keys of verl's `SandboxFusionTool` this tool reads, with verl's defaults. */
export interface CodeInterpreterConfig {
  /** Seconds, for both compile and run. @default 30 */
  default_timeout: number;
  /** @default 'python' */
  default_language: string;
  /** @default 1024 */
  memory_limit_mb: number;
}

const MAX_RUN_S = 600;

/**
 * verl's `SandboxFusionTool` over `sandbox.run_code` (SandboxFusion request
 * shape): a run whose `run_result.status` is `Finished` answers stdout + stderr,
 * anything else (including an unreachable sandbox) `no stdout here`. No reward.
 */
export function createCodeInterpreterTool(o: { schema: ToolSchema; timeoutMs: number; port: EnvPort; config: CodeInterpreterConfig }): Tool {
  const { config } = o;
  return {
    name: o.schema.function.name,
    schema: o.schema,
    timeoutMs: o.timeoutMs,
    async execute(args, ctx) {
      const t = args.timeout;
      // A model-supplied timeout must be a sane number of seconds; otherwise the default applies.
      const timeout = typeof t === 'number' && t > 0 && t <= MAX_RUN_S ? t : config.default_timeout;
      const language = typeof args.language === 'string' ? args.language : config.default_language;
      const req = {
        compile_timeout: timeout,
        run_timeout: timeout,
        code: pyStr(args.code ?? ''),
        stdin: null,
        memory_limit_MB: config.memory_limit_mb,
        language,
        files: {},
        fetch_files: [],
      };
      let res: Awaited<ReturnType<typeof o.port.runCode>>;
      try {
        res = await o.port.runCode(req, { signal: ctx.signal, timeoutMs: o.timeoutMs });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // verl's _process_single_case reports an API error as a run without `Finished`.
        return { text: 'no stdout here', reward: null, failed: true };
      }
      if (res.run_result?.status === 'Finished') return { text: `${res.run_result.stdout ?? ''}${res.run_result.stderr ?? ''}`, reward: null };
      return { text: 'no stdout here', reward: null };
    },
  };
}
