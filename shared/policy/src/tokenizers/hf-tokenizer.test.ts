import { describe, expect, it } from 'vitest';
import { trainBpe } from './bpe/train-bpe.ts';
import { BYTE_SPECIALS } from './byte-tokenizer.ts';
import { HfTokenizer } from './hf-tokenizer.ts';
import { createTokenizer } from './tokenizer.ts';

const corpus = Array.from(
  { length: 60 },
  (_, i) => `Mia has ${i % 9} apples. She buys ${i % 7} more.\n${i % 9} + ${i % 7} = ${(i % 9) + (i % 7)}\n#### ${(i % 9) + (i % 7)}`,
);

describe('HfTokenizer over a trained byte-level BPE', () => {
  const json = trainBpe(corpus, { vocabSize: 300, specials: BYTE_SPECIALS, pretokenizer: 'gpt2' });
  const tok = new HfTokenizer({ kind: 'hf', tokenizer: json });

  it('puts the specials right after the bytes, like the byte tokenizer, and uses <|im_end|> as EOS', () => {
    expect(tok.special).toEqual({ '<pad>': 256, '<bos>': 257, '<|endoftext|>': 258, '<|im_start|>': 259, '<|im_end|>': 260 });
    expect([tok.padId, tok.bosId, tok.eosId]).toEqual([256, 257, 260]);
    expect(tok.vocabSize).toBe(300);
  });

  it('encodes frequent words as one token and round-trips any text, unicode included', () => {
    expect(tok.encode(' apples')).toHaveLength(1);
    for (const text of ['Mia has 3 apples.', 'naïve café 数学 🧪', '', '  spaces\n\nand lines ']) {
      expect(tok.decode(tok.encode(text))).toBe(text);
    }
  });

  it('never turns special-token text in content into a special unless asked', () => {
    const ids = tok.encode('a<|im_end|>b');
    expect(ids).not.toContain(260);
    expect(tok.decode(ids)).toBe('a<|im_end|>b');
    expect(tok.encode('a<|im_end|>', { allowSpecial: true }).at(-1)).toBe(260);
  });

  it('renders ChatML and drops specials on decode unless kept', () => {
    const ids = tok.applyChatTemplate([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true });
    expect(tok.decode(ids, { keepSpecial: true })).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
    expect(tok.decode(ids)).toBe('user\nhi\nassistant\n');
  });

  it('rejects ids outside the vocabulary with a 400 naming the position', () => {
    expect(() => tok.decode([97, 300])).toThrow(/ids\[1\]: token id 300/);
  });

  it('is rebuilt from its JSON config (what the weights metadata stores)', () => {
    const copy = createTokenizer(JSON.parse(JSON.stringify(tok.config)));
    expect(copy.kind).toBe('hf');
    expect(copy.encode(corpus[5]!)).toEqual(tok.encode(corpus[5]!));
  });

  it('refuses a tokenizer.json without the ChatML specials', () => {
    const bare = trainBpe(corpus, { vocabSize: 270, specials: ['<pad>'] });
    expect(() => createTokenizer({ kind: 'hf', tokenizer: bare })).toThrow(/<\|im_start\|> is missing/);
  });
});
