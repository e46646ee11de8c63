import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode, ScoreResponse, requestJson } from '@rl/service-kit';
import { z } from 'zod';
import type { EnvPort, RunCodeResponse } from '../core/env-port.ts';
import { RULES_SCORE_SUBJECT, SANDBOX_RUN_CODE_SUBJECT } from '../subjects.ts';

// Only the fields the code_interpreter tool reads; the sandbox sends more.
const CommandResult = z.looseObject({ status: z.string(), stdout: z.string().nullable(), stderr: z.string().nullable(), return_code: z.number().nullable() });
const RunCodeReply = z.looseObject({ status: z.string(), message: z.string(), run_result: CommandResult.nullable(), compile_result: CommandResult.nullable() });

/** Tools and interactions reach the reward services over NATS: `reward.rules.score` and `sandbox.run_code`. */
export function createNatsEnvPort(nc: NatsConnection | undefined): EnvPort {
  const conn = (subject: string): NatsConnection => {
    if (nc === undefined) throw new AppError(ErrorCode.Unavailable, `NATS is disabled, so ${subject} cannot be reached`);
    return nc;
  };
  return {
    async score(items, call) {
      call.signal.throwIfAborted();
      const reply = await requestJson(conn(RULES_SCORE_SUBJECT), RULES_SCORE_SUBJECT, { items }, { timeoutMs: call.timeoutMs, response: ScoreResponse });
      return reply.results;
    },
    async runCode(req, call) {
      call.signal.throwIfAborted();
      return (await requestJson(conn(SANDBOX_RUN_CODE_SUBJECT), SANDBOX_RUN_CODE_SUBJECT, req, {
        timeoutMs: call.timeoutMs,
        response: RunCodeReply,
      })) as RunCodeResponse;
    },
  };
}
