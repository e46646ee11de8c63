import { describe, expect, it } from 'vitest';
import { AppError } from '@rl/service-kit/core';
import { readParquetRows } from '@rl/datasets';
import { fixture } from '@rl/datasets/testing';
import { CharTokenizer } from './char-tokenizer.ts';
import { arithmeticTokenizer, createTokenizer } from './tokenizer.ts';

describe('CharTokenizer (verl digit-completion alphabet)', () => {
  const tok = arithmeticTokenizer();

  it('has 4 specials then one id per character of 0-9 , :', () => {
    expect(tok.vocabSize).toBe(16);
    expect(tok.special).toEqual({ '<pad>': 0, '<bos>': 1, '<eos>': 2, '<unk>': 3 });
    expect([tok.padId, tok.bosId, tok.eosId]).toEqual([0, 1, 2]);
    expect(tok.encode('0123456789,:')).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  });

  it('round-trips every prompt of the verl arithmetic fixture without <unk>', async () => {
    const { rows } = await readParquetRows(fixture('verl_arithmetic_sequence_train.parquet'));
    expect(rows.length).toBe(800);
    for (const row of rows) {
      const prompt = String(row.prompt);
      const ids = tok.encode(prompt);
      expect(ids).toHaveLength([...prompt].length);
      expect(ids).not.toContain(tok.unkId);
      expect(tok.decode(ids)).toBe(prompt);
    }
  });

  it('maps unknown characters to <unk> and drops specials unless asked', () => {
    expect(tok.encode('1a2')).toEqual([5, 3, 6]);
    expect(tok.decode([5, 3, 6, 2])).toBe('12');
    expect(tok.decode([5, 3, 6, 2], { keepSpecial: true })).toBe('1<unk>2<eos>');
  });

  it('encodes special-token strings as specials only with allowSpecial', () => {
    expect(tok.encode('1<eos>', { allowSpecial: true })).toEqual([5, 2]);
    expect(tok.encode('1<eos>')).toEqual([5, 3, 3, 3, 3, 3]);
  });

  it('chat template is the plain concatenation of contents (raw-string prompts)', () => {
    const ids = tok.applyChatTemplate([
      { role: 'system', content: '1,' },
      { role: 'user', content: '2:3' },
    ]);
    expect(tok.decode(ids)).toBe('1,2:3');
    expect(ids).toEqual([...tok.encode('1,'), ...tok.encode('2:3')]);
    expect(tok.renderChatTemplate([{ role: 'user', content: '4,5' }], { addGenerationPrompt: true })).toBe('4,5');
    expect(tok.eosIds).toEqual([2]);
  });

  it('rejects ids outside the vocabulary with a code naming the position', () => {
    const err = (() => {
      try {
        tok.decode([4, 99]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('bad_request');
    expect((err as AppError).message).toContain('ids[1]');
  });

  it('rebuilds from its JSON config', () => {
    const copy = createTokenizer(JSON.parse(JSON.stringify(tok.config)));
    expect(copy).toBeInstanceOf(CharTokenizer);
    expect(copy.encode('3,4:9,2')).toEqual(tok.encode('3,4:9,2'));
    expect(copy.vocabSize).toBe(16);
  });

  it('rejects a bad config naming the field', () => {
    for (const bad of [{ kind: 'char', characters: ['1', '1'] }, { kind: 'char', characters: ['ab'] }, { kind: 'words' }]) {
      try {
        createTokenizer(bad);
        expect.unreachable();
      } catch (e) {
        expect((e as AppError).code).toBe('validation_failed');
      }
    }
  });
});
