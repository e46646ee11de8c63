// One request to a vLLM server's `/classify` as verl's reward loop sends it
// (verl/experimental/reward_loop/reward_loop.py, compute_score_disrm, at
// b178a3c): `{model, input, activation: false}`, the score read at
// `data[-1].probs[-1]`. Failures another attempt may cure (429, 5xx, a refused
// connection) are RetryableUpstream, as for the judges; anything else is an
// `upstream_error` with the server's text.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { z } from 'zod';
import { RetryableUpstream, retryAfterMs } from '../judges/chat-client.ts';

const ClassifyResponse = z.object({
  data: z.array(z.object({ probs: z.array(z.number()).min(1) })).min(1),
});

const MAX_ERROR_TEXT = 500;

/** Where and how {@link postClassify} sends. */
export interface ClassifyEndpoint {
  /** `http://host:port/classify`. */
  url: string;
  /** The served model name. */
  model: string;
  fetch: typeof fetch;
}

/** The request body verl sends for one rendered item. */
export function classifyBody(model: string, input: string): Record<string, unknown> {
  // No sigmoid/softmax: the score is the head's raw output, as the local engines give it.
  return { model, input, activation: false };
}

/** POSTs one rendered item and returns its score; rejects with the signal's reason once it aborts. */
export async function postClassify(endpoint: ClassifyEndpoint, input: string, signal: AbortSignal): Promise<number> {
  let res: Response;
  let text: string;
  try {
    res = await endpoint.fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(classifyBody(endpoint.model, input)),
      signal,
    });
    text = await res.text();
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new RetryableUpstream(0, `connection failed: ${cause}`, 0);
  }
  const snippet = text.slice(0, MAX_ERROR_TEXT);
  if (res.status === 429 || res.status >= 500) {
    throw new RetryableUpstream(res.status, `HTTP ${res.status}: ${snippet}`, retryAfterMs(res.headers.get('retry-after'), Date.now()));
  }
  if (!res.ok) throw new AppError(ErrorCode.UpstreamError, `HTTP ${res.status}: ${snippet}`, { details: { raw: snippet } });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError(ErrorCode.UpstreamError, 'the answer is not JSON', { details: { raw: snippet } });
  }
  const parsed = ClassifyResponse.safeParse(json);
  if (!parsed.success) throw new AppError(ErrorCode.UpstreamError, 'the answer has no data[-1].probs[-1]', { details: { raw: snippet } });
  return parsed.data.data.at(-1)?.probs.at(-1) as number;
}
