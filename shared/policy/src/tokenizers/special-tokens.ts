// Splitting text on special-token strings, shared by both tokenizers.

/** A piece of text or a special token id, in order. */
export type TextPiece = { text: string } | { special: number };

/** Splits `text` into plain runs and special tokens (longest name wins where names overlap). */
export function splitOnSpecials(text: string, special: Readonly<Record<string, number>>): TextPiece[] {
  const names = Object.keys(special).sort((a, b) => b.length - a.length);
  if (names.length === 0 || text === '') return text === '' ? [] : [{ text }];
  const re = new RegExp(names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const out: TextPiece[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ special: special[m[0]] as number });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** Inverse map id -> name. */
export function specialNames(special: Readonly<Record<string, number>>): Map<number, string> {
  return new Map(Object.entries(special).map(([name, id]) => [id, name]));
}
