import type { z } from 'zod';
import { AppError, ErrorCode, findPrototypeKey } from '@rl/service-kit';
import { parse as parseYaml } from 'yaml';
import { configErrorMap, formatIssues, type ConfigProblem } from './format-issues.ts';
import { JobConfig, JobConfigInput } from './job-config.ts';
import { SftJobConfig, SftJobConfigInput } from './sft-config.ts';
import { applyOverrides, parseOverrides } from './overrides.ts';

/** Options of {@link parseJobConfig}. */
export interface ParseJobConfigOptions {
  /** How to read the text. @default "yaml" (which also reads JSON) */
  format?: 'yaml' | 'json';
  /** Hydra-style `a.b.c=value` overrides, applied before validation. @default [] */
  overrides?: readonly string[];
  /** Where the text came from, for messages. @default "job config" */
  source?: string;
}

function invalidConfig(source: string, problems: ConfigProblem[]): AppError {
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`);
  return new AppError(ErrorCode.ValidationFailed, `invalid ${source}:\n${lines.join('\n')}`, { details: { problems } });
}

function parseText(text: string, format: 'yaml' | 'json', source: string): unknown {
  try {
    return format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new AppError(ErrorCode.BadRequest, `${source} is not valid ${format.toUpperCase()}: ${why}`, { cause: err });
  }
}

/** A validated job of either kind. */
export type TrainingJobConfig = JobConfig | SftJobConfig;

function validateWith<I extends z.ZodType, F extends z.ZodType>(input: I, full: F, merged: unknown, source: string): z.output<F> {
  // Cross-key rules only make sense on well-typed sections, so they run in a second pass.
  const fields = input.safeParse(merged, { error: configErrorMap });
  if (!fields.success) throw invalidConfig(source, formatIssues(fields.error.issues, merged, input));
  const done = full.safeParse(merged, { error: configErrorMap });
  if (!done.success) throw invalidConfig(source, formatIssues(done.error.issues, merged, input));
  return done.data;
}

/**
 * Validates a config object (already parsed from YAML/JSON) after applying
 * overrides. `kind` picks the schema (RL by default). Every bad key is
 * reported at once, each with its dotted path.
 */
export function validateJobConfig(raw: unknown, overrides: readonly string[] = [], source = 'job config'): TrainingJobConfig {
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalidConfig(source, [{ path: '(root)', message: 'expected a mapping of sections (data, actor_rollout_ref, ...)' }]);
  }
  const merged = applyOverrides(raw ?? {}, parseOverrides(overrides));
  // No config key is ever named so; refusing them keeps every later walk of the config (merges, copies) free of prototype writes.
  const protoKey = findPrototypeKey(merged);
  if (protoKey !== undefined) {
    throw invalidConfig(source, [{ path: protoKey, message: '"__proto__", "constructor" and "prototype" are not allowed as config keys' }]);
  }
  const kind = (merged as { kind?: unknown }).kind;
  if (kind === 'sft') return validateWith(SftJobConfigInput, SftJobConfig, merged, source);
  if (kind !== undefined && kind !== 'rl') throw invalidConfig(source, [{ path: 'kind', message: `expected "rl" or "sft", got ${JSON.stringify(kind)}` }]);
  return validateWith(JobConfigInput, JobConfig, merged, source);
}

/** {@link validateJobConfig} for callers that only take RL configs. */
export function validateRlJobConfig(raw: unknown, overrides: readonly string[] = [], source = 'job config'): JobConfig {
  const c = validateJobConfig(raw, overrides, source);
  if (c.kind === 'sft') throw invalidConfig(source, [{ path: 'kind', message: 'expected an RL job here, got "sft"' }]);
  return c;
}

/** Parses YAML or JSON text into a validated job config. */
export function parseJobConfig(text: string, options: ParseJobConfigOptions = {}): TrainingJobConfig {
  const { format = 'yaml', overrides = [], source = 'job config' } = options;
  return validateJobConfig(parseText(text, format, source), overrides, source);
}

/** {@link parseJobConfig} for callers that only take RL configs. */
export function parseRlJobConfig(text: string, options: ParseJobConfigOptions = {}): JobConfig {
  const { format = 'yaml', overrides = [], source = 'job config' } = options;
  return validateRlJobConfig(parseText(text, format, source), overrides, source);
}
