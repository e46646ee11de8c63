import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import {
  addScoreProtocolRoutes,
  addScoreRoute,
  AppError,
  ErrorCode,
  problemDoc,
  problemResponse,
  protocolRoutes,
  scoreRoute,
  type AppEnv,
  type BatchScorer,
  type HttpScorer,
} from '@rl/service-kit';
import type { Executor } from './core/executor.ts';
import type { RunDefaults } from './core/fusion.ts';
import { missingLanguages } from './core/fusion-languages.ts';
import { runCode } from './run-code.ts';
import { LanguagesResponse, RunCodeRequest, RunCodeResponse } from './schemas.ts';
import type { ScoreService } from './score-service.ts';

const runCodeRoute = createRoute({
  method: 'post',
  path: '/run_code',
  operationId: 'runCode',
  summary: 'Run one program (SandboxFusion-compatible)',
  description:
    'Request and response are exactly SandboxFusion’s RunCodeRequest / RunCodeResponse, so verl’s sandbox_fusion reward and tools work by pointing their URL here. When every slot and the queue are full the answer is HTTP 504, the one status verl’s client retries.',
  request: { body: { required: true, content: { 'application/json': { schema: RunCodeRequest } } } },
  responses: {
    200: {
      description: 'The run; `status` is Success, Failed (non-zero exit or time limit) or SandboxError',
      content: { 'application/json': { schema: RunCodeResponse } },
    },
    400: problemDoc('Malformed request, unsupported language or unsafe file path; the message names the field'),
    413: problemDoc('Body larger than the configured limit'),
    504: problemDoc('Overloaded: retry later (Retry-After)'),
  },
});

const v1ScoreRoute = scoreRoute({
  summary: 'Score model code against test cases (prime / sandbox_fusion style)',
  description:
    'Batch contract shared by every reward service. `ground_truth` is an APPS/CodeContests test spec ({"inputs", "outputs", "fn_name"?}, object or JSON string); the last fenced code block of `solution_str` runs against every case.',
});

const languagesRoute = createRoute({
  method: 'get',
  path: '/v1/languages',
  operationId: 'listLanguages',
  summary: 'Languages this instance can run and the back-end for each; the rest of SandboxFusion’s, with the command that adds each',
  responses: { 200: { description: 'Languages', content: { 'application/json': { schema: LanguagesResponse } } } },
});

const pingRoute = createRoute({
  method: 'get',
  path: '/v1/ping',
  operationId: 'ping',
  summary: 'Liveness as SandboxFusion answers it: the JSON string "pong"',
  responses: { 200: { description: 'Always "pong"', content: { 'application/json': { schema: z.literal('pong') } } } },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [runCodeRoute, v1ScoreRoute, languagesRoute, pingRoute, ...protocolRoutes];

/** Adds the sandbox routes to `app`. */
export function addRoutes(app: OpenAPIHono<AppEnv>, executor: Executor, defaults: RunDefaults, scorer: ScoreService): void {
  app.openapi(runCodeRoute, async (c) => {
    try {
      return c.json(await runCode(executor, defaults, c.req.valid('json'), c.req.raw.signal), 200);
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.Busy) {
        // verl's sandbox_fusion client retries HTTP 504 only; anything else becomes a silent zero reward.
        const res = problemResponse(new AppError(ErrorCode.Busy, err.message), 504);
        res.headers.set('retry-after', '1');
        throw new HTTPException(504, { res });
      }
      throw err;
    }
  });
  // The protocol edges build items of the shared contract, the same items `/v1/score` takes here.
  const score: BatchScorer = (items, ctx) => scorer.score(items, ctx);
  const codeScorer: HttpScorer = { scoreItems: score, protocols: score };
  addScoreRoute(app, v1ScoreRoute, codeScorer);
  app.openapi(languagesRoute, (c) => {
    const languages = executor.languages();
    return c.json({ languages, missing: missingLanguages(new Set(languages.map((l) => l.language))) }, 200);
  });
  app.openapi(pingRoute, (c) => c.json('pong' as const, 200));
  addScoreProtocolRoutes(app, codeScorer);
}
