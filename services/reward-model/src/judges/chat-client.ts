// One chat-completions request to a judge's OpenAI-compatible server (vLLM,
// SGLang, a hosted API), through the shared upstream request (post-json.ts).
import { z } from 'zod';
import { postJson } from '../upstream/post-json.ts';

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }) })).min(1),
});

/** What {@link postChat} needs besides the body. */
export interface ChatEndpoint {
  /** `<base_url>/chat/completions`. */
  url: string;
  apiKey: string | undefined;
  fetch: typeof fetch;
  now: () => number;
}

/**
 * POSTs one chat completion and returns the first choice's content ('' when
 * null). Rejects with the signal's reason once it aborts, a RetryableUpstream,
 * or an `upstream_error` AppError whose `details.raw` holds the server's text.
 */
export async function postChat(endpoint: ChatEndpoint, body: Record<string, unknown>, signal: AbortSignal): Promise<string> {
  const headers: Record<string, string> = {};
  if (endpoint.apiKey !== undefined) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const answer = await postJson(
    { url: endpoint.url, headers, fetch: endpoint.fetch, now: endpoint.now },
    body,
    ChatCompletion,
    'a chat completion (no choices[0].message)',
    signal,
  );
  return answer.choices[0]?.message.content ?? '';
}
