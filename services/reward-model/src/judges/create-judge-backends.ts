// The judges file turned into reward backends, once at start-up: every problem
// (YAML, a key, a template, a pattern, a missing API key) stops the service
// with an `invalid_config` naming the key.
import { AppError, ErrorCode, sleepMs } from '@rl/service-kit/core';
import type { RewardBackend } from '../core/backend.ts';
import { parseJudgesFile } from './judge-config.ts';
import { type JudgeDeps, LlmJudge } from './llm-judge.ts';

/** Options of {@link createJudgeBackends}. */
export interface CreateJudgesOptions extends Partial<JudgeDeps> {
  /** Names the file in errors. @default 'REWARD_JUDGES_FILE' */
  where?: string;
}

const systemClock = { now: () => Date.now(), sleep: sleepMs };

/** One {@link RewardBackend} (kind `judge`) per judge of the file; `env` holds the API keys the file names. */
export function createJudgeBackends(text: string, env: Readonly<Record<string, string | undefined>>, options: CreateJudgesOptions = {}): RewardBackend[] {
  const { where = 'REWARD_JUDGES_FILE', clock = systemClock, deadline = (ms: number) => AbortSignal.timeout(ms), fetch = globalThis.fetch, metrics } = options;
  const file = parseJudgesFile(text, where);
  return Object.entries(file.judges).map(([name, config]) => {
    const keyVar = config.api_key_env;
    const apiKey = keyVar === undefined ? undefined : env[keyVar];
    if (keyVar !== undefined && (apiKey === undefined || apiKey === '')) {
      throw new AppError(ErrorCode.InvalidConfig, `${where}: judges.${name}.api_key_env: the environment variable ${keyVar} is not set`);
    }
    try {
      return new LlmJudge(name, config, apiKey, { clock, deadline, fetch, metrics });
    } catch (err) {
      throw new AppError(ErrorCode.InvalidConfig, `${where}: judges.${name}.${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  });
}
