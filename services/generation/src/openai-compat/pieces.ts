import type { BackendGeneration, ChatCodec } from '../core/backend.ts';

/**
 * The text of a generation as OpenAI reports it: special tokens dropped, and a
 * stop string the model stopped on removed (the ids keep it). The policy's own
 * `text` is that already; otherwise the ids are decoded and a trailing stop string cut.
 */
export async function completionText(codec: ChatCodec, gen: BackendGeneration, stop: readonly string[] | undefined): Promise<string> {
  if (gen.text !== undefined) return gen.text;
  const text = await codec.decode(gen.tokenIds);
  const hit = stop?.find((s) => s !== '' && text.endsWith(s));
  return hit === undefined ? text : text.slice(0, text.length - hit.length);
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Splits `text` into one piece per token for streaming: each piece is what the
 * token adds to the decoded prefix, held back while a multi-byte character is
 * incomplete. The pieces always concatenate to `text`.
 */
export async function tokenPieces(codec: ChatCodec, ids: readonly number[], text: string): Promise<string[]> {
  const pieces: string[] = [];
  let emitted = 0;
  for (let i = 0; i < ids.length; i++) {
    const prefix = await codec.decode(ids.slice(0, i + 1));
    const upTo = i === ids.length - 1 ? text.length : Math.max(emitted, commonPrefix(prefix, text));
    pieces.push(text.slice(emitted, upTo));
    emitted = upTo;
  }
  if (ids.length === 0 && text !== '') pieces.push(text);
  return pieces;
}
