import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer as HfLibrary } from '@huggingface/tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { trainBpe } from './bpe/train-bpe.ts';
import { BYTE_SPECIALS, ByteTokenizer } from './byte-tokenizer.ts';
import { CHATML_TEMPLATE } from './chat-template.ts';
import { generationIds, tokenizerFiles, tokenizerFromDir } from './tokenizer-dir.ts';
import { arithmeticTokenizer, chatMlBpeTokenizer, createTokenizer, type PolicyTokenizer } from './tokenizer.ts';
import { CharTokenizer } from './char-tokenizer.ts';

const work = mkdtempSync(join(tmpdir(), 'tok-dir-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let dirs = 0;

function writeDir(files: Record<string, string>): string {
  const dir = join(work, `d${dirs++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const SAMPLES = ['plain ascii', 'naïve café 数学题 ✓', 'emoji 🧪👩‍🔬 e\u0301', '  spaces\n\nand\ttabs ', '12,34:56', ''];
const CHAT = [
  { role: 'system' as const, content: 'Be brief. ½' },
  { role: 'user' as const, content: '3,4:' },
];

/** Ids the written tokenizer.json gives in @huggingface/tokenizers itself, specials recognised. */
const libraryIds = (files: Record<string, string>, text: string) =>
  new HfLibrary(JSON.parse(files['tokenizer.json']!), {}).encode(text, { add_special_tokens: false }).ids;

describe('tokenizerFiles / tokenizerFromDir', () => {
  const cases: Array<[string, PolicyTokenizer]> = [
    ['byte', new ByteTokenizer()],
    ['char', new CharTokenizer({ kind: 'char', characters: [...'0123456789,: aé数'] })],
  ];
  for (const [name, tok] of cases) {
    it(`writes a ${name} tokenizer.json that encodes and decodes exactly as the class, and loads back as the same kind`, async () => {
      const files = tokenizerFiles(tok);
      const asHf = createTokenizer({ kind: 'hf', tokenizer: JSON.parse(files['tokenizer.json']!), eosToken: tok.decode([tok.eosId], { keepSpecial: true }) });
      const specialText = Object.keys(tok.special).join('x');
      for (const text of [...SAMPLES, specialText]) {
        expect(libraryIds(files, text), JSON.stringify(text)).toEqual(tok.encode(text, { allowSpecial: true }));
        expect(asHf.encode(text), JSON.stringify(text)).toEqual(tok.encode(text));
        const ids = tok.encode(text, { allowSpecial: true });
        expect(asHf.decode(ids)).toBe(tok.decode(ids));
        expect(asHf.decode(ids, { keepSpecial: true })).toBe(tok.decode(ids, { keepSpecial: true }));
      }
      const back = createTokenizer(await tokenizerFromDir(writeDir(files)));
      expect(back.config).toEqual(tok.config);
      expect(back.applyChatTemplate(CHAT, { addGenerationPrompt: true })).toEqual(tok.applyChatTemplate(CHAT, { addGenerationPrompt: true }));
      // The chat template travels in tokenizer_config.json for transformers and vLLM.
      expect(JSON.parse(files['tokenizer_config.json']!).chat_template).toBe(tok.chatTemplate);
    });
  }

  it('gives the ids generation_config.json needs', () => {
    expect(generationIds(new ByteTokenizer())).toEqual({ bos: 257, eos: 260, pad: 256 });
    expect(generationIds(arithmeticTokenizer())).toEqual({ bos: 1, eos: 2, pad: 0 });
  });

  it('round-trips a trained BPE with its ChatML template through a directory', async () => {
    const tok = chatMlBpeTokenizer(trainBpe(['Mia has 3 apples.', 'Mia buys 4 more apples.'], { vocabSize: 280, specials: BYTE_SPECIALS, minFrequency: 1 }));
    const back = createTokenizer(await tokenizerFromDir(writeDir(tokenizerFiles(tok))));
    expect(back.config).toEqual(tok.config);
    expect(back.chatTemplate).toBe(CHATML_TEMPLATE);
  });
});

describe('tokenizerFromDir reads what transformers writes', () => {
  const json = trainBpe(['hello world', 'hello there'], { vocabSize: 270, specials: ['<|endoftext|>', '<|im_start|>', '<|im_end|>'], minFrequency: 1 });
  const tokenizerJson = JSON.stringify(json);

  it('takes special tokens written as AddedToken objects, a named template list, added_tokens_decoder and generation_config', async () => {
    const dir = writeDir({
      'tokenizer.json': tokenizerJson,
      'tokenizer_config.json': JSON.stringify({
        bos_token: { __type: 'AddedToken', content: '<|endoftext|>', lstrip: false },
        eos_token: '<|im_end|>',
        pad_token: null,
        add_bos_token: true,
        added_tokens_decoder: { 270: { content: '<think>', special: false }, 257: { content: '<|im_start|>', special: true } },
        chat_template: [
          { name: 'tool_use', template: 'tools' },
          { name: 'default', template: '{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}' },
        ],
      }),
      'generation_config.json': JSON.stringify({ eos_token_id: 256 }),
    });
    const tok = createTokenizer(await tokenizerFromDir(dir));
    expect([tok.bosId, tok.eosId, tok.padId]).toEqual([256, 258, 258]);
    expect(tok.eosIds).toEqual([258, 256]);
    expect(tok.config).toMatchObject({ addBosToken: true, chatTemplate: '{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}' });
    // <think> only tokenizer_config.json lists: a non-special added token, matched in any text.
    expect(tok.encode('hello<think>')).toEqual([...tok.encode('hello'), 270]);
    expect(tok.applyChatTemplate([{ role: 'user', content: 'hello' }])).toEqual([256, ...tok.encode('hello')]);
  });

  it('prefers chat_template.jinja, and accepts the path of a tokenizer.json file', async () => {
    const dir = writeDir({
      'tokenizer.json': tokenizerJson,
      'tokenizer_config.json': JSON.stringify({ eos_token: '<|im_end|>', chat_template: 'old' }),
      'chat_template.jinja': 'new {{ messages | length }}',
    });
    const tok = createTokenizer(await tokenizerFromDir(join(dir, 'tokenizer.json')));
    expect(tok.renderChatTemplate([{ role: 'user', content: 'x' }])).toBe('new 1');
  });

  it('names the file and key of every problem', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'tokenizer_config.json': '{}' }, /d\d+\/tokenizer\.json: cannot read \(ENOENT\)/],
      [{ 'tokenizer.json': '{nope' }, /tokenizer\.json: not valid JSON/],
      [
        { 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ eos_token: '<|im_end|>', chat_template: '{% if %}' }) },
        /tokenizer_config\.json: chat_template: not a valid jinja template/,
      ],
      [
        { 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ eos_token: '<|im_end|>' }), 'chat_template.jinja': '{{ x' },
        /chat_template\.jinja: not a valid jinja template/,
      ],
      [
        { 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ chat_template: [{ name: 'rag', template: 'x' }] }) },
        /tokenizer_config\.json: chat_template has no template named "default" \(names: rag\)/,
      ],
      [{ 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ eos_token: 5 }) }, /tokenizer_config\.json: eos_token/],
      [
        { 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ eos_token: '</s>' }) },
        /d\d+: tokenizer config: eos_token "<\/s>" is not a token of tokenizer\.json/,
      ],
      [
        { 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ added_tokens_decoder: { 257: { content: '<s>' } } }) },
        /tokenizer_config\.json: added_tokens_decoder\.257 is "<s>" but tokenizer\.json's token 257 is "<\|im_start\|>"/,
      ],
      [{ 'tokenizer.json': tokenizerJson, 'generation_config.json': JSON.stringify({ eos_token_id: 'x' }) }, /generation_config\.json: eos_token_id/],
      [{ 'tokenizer.json': tokenizerJson }, /no EOS token/],
      [
        { 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': JSON.stringify({ rl_tokenizer: { kind: 'char', characters: ['ab'] } }) },
        /tokenizer_config\.json: rl_tokenizer: .*characters/,
      ],
    ];
    for (const [files, message] of cases) {
      await expect(tokenizerFromDir(writeDir(files)), String(message)).rejects.toThrow(message);
    }
  });
});
