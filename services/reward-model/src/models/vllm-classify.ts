// One request to a vLLM server's `/classify` as verl's reward loop sends it
// (verl/experimental/reward_loop/reward_loop.py, compute_score_disrm):
// `{model, input, use_activation: false}`, the score read at
// `data[-1].probs[-1]`, through the shared upstream request (post-json.ts), so
// failures sort into retryable and final as the judges' do.
//
// The flag: b178a3c sent `activation: false`; vLLM 0.11.2 renamed it
// `use_activation` (`activation` kept as a deprecated alias, to be removed in
// v0.15) and verl followed (6bc3e12). Only `use_activation` is sent: vLLM's
// first alias resolver (`get_use_activation` in vllm/config/pooler.py) read
// `if activation := getattr(o, "activation", None) is not None`, binding the
// comparison, so a sent `activation: false` turned the sigmoid *on*; and a
// vLLM past the alias ignores `activation`. A server older than 0.11.2 ignores
// `use_activation` and applies its default activation.
import { z } from 'zod';
import { postJson } from '../upstream/post-json.ts';

const ClassifyResponse = z.object({
  data: z.array(z.object({ probs: z.array(z.number()).min(1) })).min(1),
});

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
  return { model, input, use_activation: false };
}

/** POSTs one rendered item and returns its score; rejects with the signal's reason once it aborts. */
export async function postClassify(endpoint: ClassifyEndpoint, input: string, signal: AbortSignal): Promise<number> {
  const answer = await postJson(
    { url: endpoint.url, fetch: endpoint.fetch, now: Date.now },
    classifyBody(endpoint.model, input),
    ClassifyResponse,
    'a classification (no data[-1].probs[-1])',
    signal,
  );
  return answer.data.at(-1)?.probs.at(-1) as number;
}
