/**
 * End-of-sequence and padding tokens that trainers leave at the end of a
 * response decoded with `skip_special_tokens=False` (OpenRLHF decodes its whole
 * observation that way). verl, whose scorers we reproduce, always scores text
 * decoded with `skip_special_tokens=True`, so these are removed before scoring.
 */
const TRAILING_SPECIAL_TOKENS: ReadonlyArray<string> = [
  '<|im_end|>', // Qwen / ChatML
  '<|endoftext|>', // Qwen pad, GPT-2
  '<|eot_id|>', // Llama 3
  '<|end_of_text|>', // Llama 3 base
  '<｜end▁of▁sentence｜>', // DeepSeek
  '<|end|>', // Phi-3
  '<end_of_turn>', // Gemma
  '<eos>', // Gemma
  '</s>', // Llama 2, Mistral
  '<|return|>', // gpt-oss
  '<pad>',
];

const TRAILING_WHITESPACE = /\s+$/u;

/**
 * Removes trailing special tokens, repeatedly (`...<|im_end|>\n<|endoftext|>`),
 * skipping whitespace only *between* tokens: whitespace the model wrote before
 * the first token stays, as a decode without special tokens would keep it.
 */
export function stripTrailingSpecialTokens(text: string): string {
  let out = text;
  for (;;) {
    const candidate = out === text ? out : out.replace(TRAILING_WHITESPACE, '');
    const token = TRAILING_SPECIAL_TOKENS.find((t) => candidate.endsWith(t));
    if (token === undefined) return out;
    out = candidate.slice(0, candidate.length - token.length);
  }
}

/**
 * The response part of an OpenRLHF `query` (prompt + response decoded together).
 * Usually the query starts with the prompt. When the trainer left-truncated a
 * long prompt, the query starts with a suffix of it: the longest suffix of the
 * prompt that begins the query is cut. With no overlap at all the whole query is
 * the response. Linear time (KMP), whatever the input.
 */
export function responseAfterPrompt(query: string, prompt: string): string {
  if (prompt === '' || query.startsWith(prompt)) return stripTrailingSpecialTokens(query.slice(prompt.length));
  return stripTrailingSpecialTokens(query.slice(longestPromptSuffixStartingQuery(query, prompt)));
}

/** Length of the longest suffix of `prompt` that is a prefix of `query`. */
function longestPromptSuffixStartingQuery(query: string, prompt: string): number {
  // Prefix function of `pattern` (query's head), then run `prompt` through the automaton.
  const pattern = query.slice(0, prompt.length);
  if (pattern === '') return 0;
  const fail = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = fail[k - 1]!;
    if (pattern[i] === pattern[k]) k++;
    fail[i] = k;
  }
  let matched = 0;
  for (let i = 0; i < prompt.length; i++) {
    if (matched === pattern.length) matched = fail[matched - 1]!;
    while (matched > 0 && prompt[i] !== pattern[matched]) matched = fail[matched - 1]!;
    if (prompt[i] === pattern[matched]) matched++;
  }
  return matched;
}
