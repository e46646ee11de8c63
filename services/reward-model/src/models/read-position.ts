// Which token's state a one-label head is read at, as transformers and verl read it.

/** `last_token`: verl's reward model (a ...ForTokenClassification read at the last token of the sequence). `last_non_pad`: ...ForSequenceClassification. */
export type ReadAt = 'last_token' | 'last_non_pad';

/** How the architecture named in config.json reads its score. */
export function readAtOf(architecture: string): ReadAt {
  return architecture.endsWith('ForSequenceClassification') ? 'last_non_pad' : 'last_token';
}

/**
 * The index of the token the head reads in `ids`. For `last_non_pad` this is
 * transformers' `(arange * (ids != pad_token_id)).argmax()`: the last id that is
 * not `padId` (0 when every id is), the last token when the config has no
 * pad_token_id.
 */
export function readIndex(ids: readonly number[], readAt: ReadAt, padId: number | null): number {
  if (readAt === 'last_token' || padId === null) return ids.length - 1;
  for (let i = ids.length - 1; i >= 0; i--) if (ids[i] !== padId) return i;
  return 0;
}
