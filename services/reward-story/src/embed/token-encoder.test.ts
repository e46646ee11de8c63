import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit';
import { buildBertTokenizerJson } from '../../tools/model-build/bert-tokenizer-json.ts';
import { TINY_VOCAB } from './testing/tiny-model.ts';
import { createTokenEncoder } from './token-encoder.ts';

// ids: [PAD]0 [UNK]1 [CLS]2 [SEP]3 cat4 dog5 sat6
const json = buildBertTokenizerJson(TINY_VOCAB, 128);

describe('createTokenEncoder', () => {
  it('wraps the text in [CLS] … [SEP], lowercasing and splitting punctuation like BERT', () => {
    const enc = createTokenEncoder(json, {}, 128);
    expect(enc.encode('Cat DOG')).toEqual([2, 4, 5, 3]);
    expect(enc.encode('cat, bird')).toEqual([2, 4, 1, 1, 3]);
    expect(enc.encode('')).toEqual([2, 3]);
  });

  it('truncates the content, never the special tokens', () => {
    const enc = createTokenEncoder(json, {}, 4);
    expect(enc.encode('cat dog sat cat')).toEqual([2, 4, 5, 3]);
  });

  it('right-pads a batch to its longest row with [PAD] and mask 0', () => {
    const batch = createTokenEncoder(json, {}, 128).encodeBatch(['cat', 'cat sat dog']);
    expect(batch).toEqual({
      batch: 2,
      seqLen: 5,
      inputIds: [2, 4, 3, 0, 0, 2, 4, 6, 5, 3],
      attentionMask: [1, 1, 1, 0, 0, 1, 1, 1, 1, 1],
    });
  });

  it('uses padding.pad_id from tokenizer.json when present', () => {
    const batch = createTokenEncoder({ ...json, padding: { pad_id: 1 } }, {}, 128).encodeBatch(['cat', 'cat dog']);
    expect(batch.inputIds).toEqual([2, 4, 3, 1, 2, 4, 5, 3]);
  });

  it('refuses a limit that leaves no room for text', () => {
    expect(() => createTokenEncoder(json, {}, 2)).toThrow(expect.objectContaining({ code: ErrorCode.Unavailable }));
  });

  it('clips a huge text before tokenising and still gives its first tokens', () => {
    const enc = createTokenEncoder(json, {}, 8);
    expect(enc.encode('cat '.repeat(1_000_000))).toEqual([2, 4, 4, 4, 4, 4, 4, 3]);
  });
});
