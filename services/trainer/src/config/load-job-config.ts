import { readFile } from 'node:fs/promises';
import { AppError, ErrorCode } from '@rl/shared/errors';
import { parse as parseYaml } from 'yaml';
import { configErrorMap, formatIssues, type ConfigProblem } from './format-issues.ts';
import { JobConfig, JobConfigInput } from './job-config.ts';
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
  return new AppError(ErrorCode.ValidationFailed, `invalid ${source}:\n${lines.join('\n')}`, { status: 400, details: { problems } });
}

function parseText(text: string, format: 'yaml' | 'json', source: string): unknown {
  try {
    return format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new AppError(ErrorCode.BadRequest, `${source} is not valid ${format.toUpperCase()}: ${why}`, { status: 400, cause: err });
  }
}

/**
 * Validates a config object (already parsed from YAML/JSON) after applying
 * overrides. Every bad key is reported at once, each with its dotted path.
 */
export function validateJobConfig(raw: unknown, overrides: readonly string[] = [], source = 'job config'): JobConfig {
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalidConfig(source, [{ path: '(root)', message: 'expected a mapping of sections (data, actor_rollout_ref, ...)' }]);
  }
  const merged = applyOverrides(raw ?? {}, parseOverrides(overrides));
  // Cross-key rules only make sense on well-typed sections, so they run in a second pass.
  const fields = JobConfigInput.safeParse(merged, { error: configErrorMap });
  if (!fields.success) throw invalidConfig(source, formatIssues(fields.error.issues, merged, JobConfigInput));
  const full = JobConfig.safeParse(merged, { error: configErrorMap });
  if (!full.success) throw invalidConfig(source, formatIssues(full.error.issues, merged, JobConfigInput));
  return full.data;
}

/** Parses YAML or JSON text into a validated {@link JobConfig}. */
export function parseJobConfig(text: string, options: ParseJobConfigOptions = {}): JobConfig {
  const { format = 'yaml', overrides = [], source = 'job config' } = options;
  return validateJobConfig(parseText(text, format, source), overrides, source);
}

/** Reads a `.yaml`/`.yml`/`.json` job config file and validates it (with overrides). */
export async function readJobConfigFile(path: string, overrides: readonly string[] = []): Promise<JobConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AppError(ErrorCode.NotFound, `${path}: cannot read job config`, { status: 404, cause: err });
  }
  return parseJobConfig(text, { format: path.endsWith('.json') ? 'json' : 'yaml', overrides, source: path });
}
