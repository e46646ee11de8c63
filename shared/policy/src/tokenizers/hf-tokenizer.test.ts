import { describe, expect, it } from 'vitest';
import { trainBpe } from './bpe/train-bpe.ts';
import { BYTE_SPECIALS } from './byte-tokenizer.ts';
import { HfTokenizer } from './hf-tokenizer.ts';
import { chatMlBpeTokenizer, createTokenizer } from './tokenizer.ts';

const corpus = Array.from(
  { length: 60 },
  (_, i) => `Mia has ${i % 9} apples. She buys ${i % 7} more.\n${i % 9} + ${i % 7} = ${(i % 9) + (i % 7)}\n#### ${(i % 9) + (i % 7)}`,
);

describe('HfTokenizer over a trained byte-level BPE', () => {
  const json = trainBpe(corpus, { vocabSize: 300, specials: BYTE_SPECIALS, pretokenizer: 'gpt2' });
  const tok = chatMlBpeTokenizer(json);

  it('puts the specials right after the bytes, like the byte tokenizer, and uses <|im_end|> as EOS', () => {
    expect(tok.special).toEqual({ '<pad>': 256, '<bos>': 257, '<|endoftext|>': 258, '<|im_start|>': 259, '<|im_end|>': 260 });
    expect([tok.padId, tok.bosId, tok.eosId]).toEqual([256, 257, 260]);
    expect(tok.eosIds).toEqual([260]);
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

  it('takes its specials from the config: no BOS, the pad falls back to the EOS, generation eos ids stop too', () => {
    const t = new HfTokenizer({ kind: 'hf', tokenizer: json, eosToken: '<|endoftext|>', eosTokenIds: [260, 258] });
    expect([t.bosId, t.eosId, t.padId]).toEqual([null, 258, 258]);
    expect(t.eosIds).toEqual([258, 260]);
  });

  it('refuses a config without an EOS, or naming a token tokenizer.json lacks, naming the key', () => {
    expect(() => createTokenizer({ kind: 'hf', tokenizer: json })).toThrow(/no EOS token \(set eos_token in tokenizer_config.json/);
    expect(() => createTokenizer({ kind: 'hf', tokenizer: json, eosToken: '</s>' })).toThrow(/eos_token "<\/s>" is not a token of tokenizer.json/);
    expect(() => createTokenizer({ kind: 'hf', tokenizer: json, eosToken: '<|im_end|>', eosTokenIds: [300] })).toThrow(
      /eos_token_id\[0\] 300 is outside the vocabulary/,
    );
  });

  it('without a chat template, encodes and decodes but refuses to apply one', () => {
    const t = createTokenizer({ kind: 'hf', tokenizer: json, eosToken: '<|im_end|>' });
    expect(t.chatTemplate).toBe('');
    expect(t.decode(t.encode('Mia'))).toBe('Mia');
    expect(() => t.applyChatTemplate([{ role: 'user', content: 'hi' }])).toThrow(/no chat template/);
  });

  it('refuses a chat template with a syntax error, and reports what the template raises', () => {
    expect(() => createTokenizer({ kind: 'hf', tokenizer: json, eosToken: '<|im_end|>', chatTemplate: '{% for m in messages %}' })).toThrow(
      /chat_template: not a valid jinja template/,
    );
    const strict = createTokenizer({
      kind: 'hf',
      tokenizer: json,
      eosToken: '<|im_end|>',
      chatTemplate: "{% if messages[0].role != 'user' %}{{ raise_exception('Conversation must start with the user') }}{% endif %}{{ messages[0].content }}",
    });
    expect(() => strict.applyChatTemplate([{ role: 'assistant', content: 'x' }])).toThrow(/chat template: .*Conversation must start with the user/);
    expect(strict.applyChatTemplate([{ role: 'user', content: 'Mia' }])).toEqual(strict.encode('Mia'));
  });
});
