import type { BackendGeneration, InferenceBackend, TokenSession } from '../core/backend.ts';
import type { CompletionRequest, CompletionResponse } from '../schemas/openai.ts';
import { samplingOf } from './convert.ts';
import { completionText, tokenPieces } from './pieces.ts';
import { checkModel, checkPromptRoom, openTokenSession, type OpenAiContext } from './session.ts';

/** OpenAI's default `max_tokens` of `/v1/completions`. */
const DEFAULT_MAX_TOKENS = 16;

/** One generated choice with what both the response and the stream need. */
interface Choice {
  index: number;
  promptIds: number[];
  gen: BackendGeneration;
  text: string;
  /** Display string of each token in `logprobs.tokens`. */
  tokens: string[];
}

type Logprobs = NonNullable<CompletionResponse['choices'][number]['logprobs']>;

async function promptsOf(session: TokenSession, prompt: CompletionRequest['prompt']): Promise<number[][]> {
  if (typeof prompt === 'string') return [await session.codec.encode(prompt)];
  if (prompt.every((p) => typeof p === 'number')) return [prompt as number[]];
  return Promise.all((prompt as Array<string | number[]>).map(async (p) => (typeof p === 'string' ? session.codec.encode(p) : p)));
}

function logprobsOf(c: Choice, k: number | null | undefined): Logprobs | null {
  if (k === undefined || k === null) return null;
  const offsets: number[] = [];
  let at = 0;
  for (const t of c.tokens) {
    offsets.push(at);
    at += t.length;
  }
  const top = k > 0 ? c.tokens.map((t, i) => ({ [t]: c.gen.logprobs[i] ?? 0 })) : null;
  return { tokens: c.tokens, token_logprobs: c.gen.logprobs, top_logprobs: top, text_offset: offsets };
}

/** Generates every choice of a completion request (prompts x n), batched by the backend. */
async function generateChoices(session: TokenSession, req: CompletionRequest): Promise<Choice[]> {
  const prompts = await promptsOf(session, req.prompt);
  prompts.forEach((p, i) => checkPromptRoom(session, p.length, prompts.length === 1 ? 'prompt' : `prompt[${i}]`));
  const n = req.n ?? 1;
  const jobs = prompts.flatMap((promptIds, p) => Array.from({ length: n }, (_, j) => ({ index: p * n + j, promptIds })));
  const gens = await Promise.all(
    jobs.map((job) => session.generate({ promptIds: job.promptIds, params: samplingOf(req, req.max_tokens ?? DEFAULT_MAX_TOKENS, job.index, jobs.length) })),
  );
  const stop = samplingOf(req, 1, 0, 1).stop;
  return Promise.all(
    jobs.map(async (job, i) => {
      const gen = gens[i] as BackendGeneration;
      const tokens =
        req.logprobs === undefined || req.logprobs === null
          ? []
          : req.return_tokens_as_token_ids === true
            ? gen.tokenIds.map((id) => `token_id:${id}`)
            : await Promise.all(gen.tokenIds.map((id) => session.codec.decode([id], { keepSpecial: true })));
      return { ...job, gen, text: await completionText(session.codec, gen, stop), tokens };
    }),
  );
}

function usageOf(choices: Choice[]) {
  const prompt = [...new Set(choices.map((c) => c.promptIds))].reduce((s, p) => s + p.length, 0);
  const completion = choices.reduce((s, c) => s + c.gen.tokenIds.length, 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A finished completion: the JSON reply, plus the SSE chunks when `stream` was asked. */
export interface CompletionResult {
  response: CompletionResponse;
  /** The `data:` objects of the stream, `[DONE]` excluded. */
  chunks: object[] | undefined;
}

/**
 * `POST /v1/completions` over the backend: token-id or text prompts (one or
 * many), `n` choices each, log-probs of the sampled tokens (the only entry of
 * `top_logprobs`), and vLLM's `return_tokens_as_token_ids` / `return_token_ids`.
 */
export async function createCompletion(backend: InferenceBackend, req: CompletionRequest, ctx: OpenAiContext): Promise<CompletionResult> {
  checkModel(backend, req.model);
  const session = await openTokenSession(backend);
  try {
    const choices = await generateChoices(session, req);
    const base = { id: ctx.id, object: 'text_completion' as const, created: ctx.created, model: backend.model, system_fingerprint: session.modelVersion };
    const response: CompletionResponse = {
      ...base,
      choices: choices.map((c) => ({
        index: c.index,
        text: c.text,
        logprobs: logprobsOf(c, req.logprobs),
        finish_reason: c.gen.finishReason,
        ...(req.return_token_ids === true ? { token_ids: c.gen.tokenIds, prompt_token_ids: c.promptIds } : {}),
      })),
      usage: usageOf(choices),
    };
    if (req.stream !== true) return { response, chunks: undefined };
    const chunks: object[] = [];
    for (const c of choices) {
      const lp = logprobsOf(c, req.logprobs);
      const pieces = await tokenPieces(session.codec, c.gen.tokenIds, c.text);
      pieces.forEach((text, i) => {
        const logprobs =
          lp === null
            ? null
            : {
                tokens: [lp.tokens[i]],
                token_logprobs: [lp.token_logprobs[i]],
                top_logprobs: lp.top_logprobs === null ? null : [lp.top_logprobs[i]],
                text_offset: [lp.text_offset[i]],
              };
        chunks.push({ ...base, choices: [{ index: c.index, text, logprobs, finish_reason: null }] });
      });
      chunks.push({ ...base, choices: [{ index: c.index, text: '', logprobs: null, finish_reason: c.gen.finishReason }] });
    }
    if (req.stream_options?.include_usage === true) chunks.push({ ...base, choices: [], usage: response.usage });
    return { response, chunks };
  } finally {
    session.release();
  }
}
