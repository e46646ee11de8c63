import { describe, expect, it } from 'vitest';
import { createTokenEncoder } from '../../src/embed/token-encoder.ts';
import { buildUnigramTokenizerJson } from './unigram-tokenizer-json.ts';

// Scores are log-probabilities: the tokenizer takes the segmentation with the highest sum.
const VOCAB: Array<[string, number]> = [
  ['[PAD]', 0],
  ['[UNK]', 0],
  ['[CLS]', 0],
  ['[SEP]', 0],
  ['骑士', -8],
  ['骑', -9],
  ['士', -9],
  ['拔', -9],
  ['拔出', -8],
  ['出', -7],
  ['剑', -8],
  ['长剑', -10],
  ['长', -7],
  ['whisper', -9],
  ['ed', -12],
  ['w', -30],
  ['h', -30],
  ['i', -30],
  ['s', -30],
  ['p', -30],
  ['e', -30],
  ['r', -30],
  ['d', -30],
  ['，', 0],
];
const json = buildUnigramTokenizerJson(
  VOCAB.map(([t]) => t),
  VOCAB.map(([, s]) => s),
  64,
);
const idOf = (t: string) => VOCAB.findIndex(([v]) => v === t);

describe('buildUnigramTokenizerJson', () => {
  const enc = createTokenEncoder(json, {}, 64);
  const tokens = (text: string) =>
    enc
      .encode(text)
      .slice(1, -1)
      .map((id) => VOCAB[id]![0]);

  it('segments a run of Chinese into the most probable words, not characters', () => {
    expect(tokens('骑士拔出长剑')).toEqual(['骑士', '拔出', '长剑']); // -8-8-10 beats 长+剑 = -15
    expect(tokens('骑士，剑')).toEqual(['骑士', '，', '剑']);
  });

  it('splits an unlisted English word into pieces and maps unknown characters to [UNK]', () => {
    expect(tokens('Whispered')).toEqual(['whisper', 'ed']);
    expect(tokens('剑龙')).toEqual(['剑', '[UNK]']);
  });

  it('puts [CLS] … [SEP] around the text, as the encoder expects', () => {
    expect(enc.encode('剑')).toEqual([idOf('[CLS]'), idOf('剑'), idOf('[SEP]')]);
  });

  it('refuses a vocabulary without the special tokens, with duplicates, or with a score missing', () => {
    expect(() => buildUnigramTokenizerJson(['a', 'b'], [0, 0], 8)).toThrow(/lacks \[PAD\]/);
    expect(() => buildUnigramTokenizerJson(['[PAD]', '[PAD]'], [0, 0], 8)).toThrow(/duplicate/);
    expect(() => buildUnigramTokenizerJson(['[PAD]'], [], 8)).toThrow(/scores/);
  });
});
