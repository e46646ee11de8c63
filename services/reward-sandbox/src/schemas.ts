import { z } from '@hono/zod-openapi';
import { FUSION_LANGUAGES } from './core/fusion-languages.ts';

/** Largest program text accepted. */
export const MAX_CODE_CHARS = 1024 * 1024;
/** Largest stdin accepted. */
export const MAX_STDIN_CHARS = 16 * 1024 * 1024;
/** Longest run or compile timeout a caller may ask for, in seconds. */
export const MAX_TIMEOUT_S = 600;
/** Most files per request. */
export const MAX_FILES = 64;

/** SandboxFusion `RunCodeRequest` (sandbox/server/sandbox_api.py): same fields, same defaults. */
export const RunCodeRequest = z
  .object({
    compile_timeout: z.number().gt(0).max(MAX_TIMEOUT_S).default(10).openapi({ description: 'compile timeout for compiled languages, seconds' }),
    run_timeout: z.number().gt(0).max(MAX_TIMEOUT_S).default(10).openapi({ description: 'code run timeout, seconds' }),
    memory_limit_MB: z
      .number()
      .int()
      .min(-1)
      .max(65_536)
      .default(-1)
      .openapi({ description: 'maximum memory allowed in megabytes; -1 means the service default' }),
    code: z.string().max(MAX_CODE_CHARS).openapi({ example: 'print("hello")' }),
    stdin: z.string().max(MAX_STDIN_CHARS).nullable().default(null),
    language: z.enum(FUSION_LANGUAGES).openapi({ example: 'python' }),
    files: z
      .record(z.string().min(1).max(255), z.string().nullable())
      .refine((f) => Object.keys(f).length <= MAX_FILES, { message: `at most ${MAX_FILES} files` })
      .default({})
      .openapi({ description: 'a dict from file path to base64 encoded file content' }),
    fetch_files: z.array(z.string().min(1).max(255)).max(MAX_FILES).default([]).openapi({ description: 'a list of file paths to fetch after code execution' }),
  })
  .openapi('RunCodeRequest');
export type RunCodeRequest = z.infer<typeof RunCodeRequest>;

/** SandboxFusion `CommandRunResult`, plus our memory verdict and truncation flag. */
export const CommandRunResult = z
  .object({
    status: z.enum(['Finished', 'Error', 'TimeLimitExceeded']),
    execution_time: z.number().nullable(),
    return_code: z.number().int().nullable(),
    stdout: z.string().nullable(),
    stderr: z.string().nullable(),
    memory_limit_exceeded: z.boolean().optional().openapi({ description: 'extension: the run hit memory_limit_MB (SandboxFusion issue #43)' }),
    output_truncated: z.boolean().optional().openapi({ description: 'extension: stdout or stderr was cut at the output cap' }),
  })
  .openapi('CommandRunResult');

/** SandboxFusion `RunCodeResponse`. */
export const RunCodeResponse = z
  .object({
    status: z.enum(['Success', 'Failed', 'SandboxError']),
    message: z.string(),
    compile_result: CommandRunResult.nullable(),
    run_result: CommandRunResult.nullable(),
    executor_pod_name: z.string().nullable(),
    files: z.record(z.string(), z.string()),
  })
  .openapi('RunCodeResponse');
export type RunCodeResponse = z.infer<typeof RunCodeResponse>;

/** `GET /v1/languages`. */
export const LanguagesResponse = z
  .object({
    languages: z
      .array(z.object({ language: z.string(), runner: z.string() }))
      .openapi({ description: 'languages whose toolchain is installed, with the back-end that runs each' }),
    missing: z
      .array(
        z.object({
          language: z.enum(FUSION_LANGUAGES),
          reason: z.string(),
          install: z
            .string()
            .nullable()
            .openapi({ description: 'the command (as root) that adds it, then restart the service; null when no package provides it' }),
        }),
      )
      .openapi({ description: "SandboxFusion's other languages: a request for one is a 400 unsupported_language" }),
  })
  .openapi('LanguagesResponse');
export type LanguagesResponse = z.infer<typeof LanguagesResponse>;
