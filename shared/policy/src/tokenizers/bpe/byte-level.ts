// GPT-2's byte-to-unicode table (used by every byte-level BPE tokenizer.json,
// Qwen's included): each byte maps to one printable code point, so merges and
// vocab entries are plain strings. Printable latin-1 bytes map to themselves;
// the rest are shifted to 256 + n in byte order.

const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);

/** byte -> its byte-level character. */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const out: string[] = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++) out.push(String.fromCodePoint(printable(b) ? b : 256 + shifted++));
  return out;
})();

/** byte-level character -> byte. */
export const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));
