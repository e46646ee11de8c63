import { ScoreRequest, parsedEndpoint, scoreEndpoint, type EndpointSpec } from '@rl/service-kit';
import type { Executor } from './core/executor.ts';
import type { RunDefaults } from './core/fusion.ts';
import { runCode } from './run-code.ts';
import { RunCodeRequest } from './schemas.ts';
import type { ScoreService } from './score-service.ts';
import { RUN_CODE_SUBJECT, SCORE_SUBJECT } from './subjects.ts';

/** NATS endpoints: the same core calls and bodies as `POST /v1/score` and `POST /run_code`. */
export function natsEndpoints(executor: Executor, defaults: RunDefaults, scorer: ScoreService): EndpointSpec[] {
  return [
    scoreEndpoint({ subject: SCORE_SUBJECT, request: ScoreRequest, scoreItems: (items, ctx) => scorer.score(items, ctx) }),
    parsedEndpoint({
      name: 'run_code',
      subject: RUN_CODE_SUBJECT,
      request: RunCodeRequest,
      // Overload stays the `busy` AppError here: NATS callers (our trainer) retry on the code.
      handle: (req, ctx) => runCode(executor, defaults, req, ctx.signal),
    }),
  ];
}
