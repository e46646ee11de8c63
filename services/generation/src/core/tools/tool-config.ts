import { AppError, ErrorCode, getOwn, validationError } from '@rl/service-kit/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { EnvPort } from '../env-port.ts';
import { CALCULATOR_SCHEMA, createCalculatorTool } from './calculator.ts';
import { CODE_INTERPRETER_SCHEMA, createCodeInterpreterTool } from './code-interpreter.ts';
import { GSM8K_REWARD_SCHEMA, createGsm8kRewardTool } from './gsm8k-reward.ts';
import type { Tool, ToolSchema } from './tool.ts';

/** verl's `OpenAIFunctionToolSchema`. */
export const ToolSchemaConfig = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    description: z.string().default(''),
    parameters: z
      .object({ type: z.string(), properties: z.record(z.string(), z.unknown()), required: z.array(z.string()).default([]) })
      .default({ type: 'object', properties: {}, required: [] }),
    strict: z.boolean().optional(),
  }),
});

/** A tool config file in verl's format (`actor_rollout_ref.rollout.multi_turn.tool_config_path`). */
export const ToolConfigFile = z.object({
  tools: z
    .array(
      z.object({
        /** verl class path (`verl.tools.gsm8k_tool.Gsm8kTool`) or just its class name; the last segment picks our tool. */
        class_name: z.string().min(1),
        config: z
          .looseObject({
            type: z.literal('native', { message: "only 'native' tools are supported (no MCP)" }).default('native'),
            /** Deadline of one call of this tool, ms. @default the service's TOOL_TIMEOUT_MS */
            timeout_ms: z.number().int().positive().optional(),
          })
          .default({ type: 'native' }),
        tool_schema: ToolSchemaConfig.optional(),
      }),
    )
    .default([]),
});
export type ToolConfigFile = z.infer<typeof ToolConfigFile>;

type ToolEntry = ToolConfigFile['tools'][number];
interface BuildDeps {
  port: EnvPort;
  defaultTimeoutMs: number;
}
type Factory = (schema: ToolSchema | undefined, entry: ToolEntry, timeoutMs: number, deps: BuildDeps) => Tool;

const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);

/** Our tools by verl class name. */
const TOOL_CLASSES: Readonly<Record<string, Factory>> = {
  Gsm8kTool: (schema, _e, timeoutMs, { port }) => createGsm8kRewardTool({ schema: schema ?? GSM8K_REWARD_SCHEMA, timeoutMs, port }),
  SandboxFusionTool: (schema, e, timeoutMs, { port }) =>
    createCodeInterpreterTool({
      schema: schema ?? CODE_INTERPRETER_SCHEMA,
      timeoutMs,
      port,
      config: {
        default_timeout: num(e.config.default_timeout, 30),
        default_language: typeof e.config.default_language === 'string' ? e.config.default_language : 'python',
        memory_limit_mb: num(e.config.memory_limit_mb, 1024),
      },
    }),
  CalculatorTool: (schema, _e, timeoutMs) => createCalculatorTool({ schema: schema ?? CALCULATOR_SCHEMA, timeoutMs }),
};

/** Class names a tool config may use (last segment of `class_name`). */
export const KNOWN_TOOL_CLASSES = Object.keys(TOOL_CLASSES);

/** Parses a YAML tool config; errors name the file and the failing field. */
export function parseToolConfig(yamlText: string, where: string): ToolConfigFile {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText);
  } catch (err) {
    throw new AppError(ErrorCode.InvalidConfig, `${where}: not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = ToolConfigFile.safeParse(raw ?? {});
  if (!parsed.success) throw validationError(parsed.error, where);
  return parsed.data;
}

/** Builds the tools of a parsed config, keyed by their schema name (what the model calls). */
export function buildTools(file: ToolConfigFile, deps: BuildDeps, where = 'tool config'): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  file.tools.forEach((entry, i) => {
    const cls = entry.class_name.split('.').at(-1) ?? '';
    // Own keys only: `class_name: x.constructor` must be an unknown class, not Object.
    const factory = getOwn(TOOL_CLASSES, cls);
    if (factory === undefined) {
      throw new AppError(
        ErrorCode.InvalidConfig,
        `${where}: tools[${i}].class_name: unknown tool class '${entry.class_name}' (known: ${KNOWN_TOOL_CLASSES.join(', ')})`,
      );
    }
    const tool = factory(entry.tool_schema as ToolSchema | undefined, entry, entry.config.timeout_ms ?? deps.defaultTimeoutMs, deps);
    if (tools.has(tool.name)) throw new AppError(ErrorCode.InvalidConfig, `${where}: tools[${i}]: duplicate tool name '${tool.name}'`);
    tools.set(tool.name, tool);
  });
  return tools;
}
