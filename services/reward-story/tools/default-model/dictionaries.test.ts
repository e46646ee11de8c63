import { describe, expect, it } from 'vitest';
import { parseCedict } from './cedict.ts';
import { parseJiebaDict } from './chinese-words.ts';
import { glossContentWords } from './gloss-words.ts';
import { parseIndexSense, parseSynsetData } from './wordnet.ts';

describe('parseCedict', () => {
  it('merges readings by simplified form, keeps traditional spellings and skips name readings', () => {
    const d = parseCedict(
      ['# CC-CEDICT', '火 火 [Huo3] /surname Huo/', '火 火 [huo3] /fire/urgent/', '劍 剑 [jian4] /double-edged sword/CL:把[ba3]/', 'junk'].join('\n'),
    );
    expect(d.get('火')).toEqual({ traditional: [], glosses: ['fire', 'urgent'] });
    expect(d.get('剑')).toEqual({ traditional: ['劍'], glosses: ['double-edged sword', 'CL:把[ba3]'] });
    expect(d.size).toBe(2);
  });
});

describe('glossContentWords', () => {
  it('keeps the content words of a translation and nothing of a usage note or a long definition', () => {
    expect(glossContentWords('to be afraid')).toEqual(['afraid']);
    expect(glossContentWords('(double-edged) sword')).toEqual(['sword']);
    expect(glossContentWords('fiery or flaming')).toEqual(['fiery', 'flaming']);
    expect(glossContentWords('surname Huo')).toEqual([]);
    expect(glossContentWords('CL:把[ba3]')).toEqual([]);
    expect(glossContentWords('variant of 劍[jian4]')).toEqual([]);
    expect(glossContentWords('a long story about old men and their small boats')).toEqual([]);
  });
});

describe('parseJiebaDict', () => {
  it('keeps Han-only words, most frequent first, first entry of a repeated word', () => {
    expect(parseJiebaDict('AA制 3 n\n剑 50 n\n宝剑 20 n\n火 60 n\n剑 1 n\n\n').map((w) => w.word)).toEqual(['火', '剑', '宝剑']);
  });
});

describe('WordNet', () => {
  it('lists a lemma’s senses by tag count, then sense number', () => {
    const senses = parseIndexSense(
      ['blade%1:06:01:: 04380981 4 1', 'blade%1:20:00:: 13152642 1 4', 'blade%1:18:00:: 09878691 2 1', "o'clock%4:02:00:: 00000001 1 0"].join('\n'),
    );
    expect(senses.get('blade')?.map((s) => s.synset)).toEqual(['n13152642', 'n09878691', 'n04380981']);
    expect(senses.has("o'clock")).toBe(false);
  });

  it('reads a synset’s words, hypernyms and definition from a data line', () => {
    const line =
      '04380981 06 n 04 sword 0 blade 1 brand 0 steel 1 002 @ 04572661 n 0000 ~ 02774755 n 0000 | a cutting or thrusting weapon; "he drew his sword"  ';
    const adj = '00195400 00 s 01 dread(a) 0 000 | causing fear';
    const info = parseSynsetData(`  1 license header\n${line}\n${adj}\n`);
    expect(info.get('n04380981')).toEqual({
      lemmas: ['sword', 'blade', 'brand', 'steel'],
      hypernyms: ['n04572661'],
      glossWords: ['a', 'cutting', 'or', 'thrusting', 'weapon'],
    });
    expect(info.get('a00195400')).toEqual({ lemmas: ['dread'], hypernyms: [], glossWords: ['causing', 'fear'] });
  });
});
