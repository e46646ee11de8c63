import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSchema } from '../types.ts';
import { renderWithPython } from './reference/testing/render-with-python.ts';
import { ByteTokenizer } from './byte-tokenizer.ts';
import { createTokenizer } from './tokenizer.ts';

describe('ByteTokenizer', () => {
  const tok = new ByteTokenizer();

  it('has 256 byte ids then the specials; EOS is <|im_end|>', () => {
    expect(tok.vocabSize).toBe(261);
    expect(tok.special).toEqual({ '<pad>': 256, '<bos>': 257, '<|endoftext|>': 258, '<|im_start|>': 259, '<|im_end|>': 260 });
    expect(tok.eosId).toBe(260);
  });

  it('round-trips unicode through UTF-8 bytes', () => {
    for (const text of ['plain ascii', 'naïve café', '数学题 ✓', 'emoji 🧪👩‍🔬', 'e\u0301 combining', '']) {
      const ids = tok.encode(text);
      expect(ids).toEqual([...new TextEncoder().encode(text)]);
      expect(tok.decode(ids)).toBe(text);
    }
  });

  it('turns invalid UTF-8 into U+FFFD, also when a special splits a character', () => {
    expect(tok.decode([0xff, 0x41])).toBe('\uFFFDA');
    const euro = [...new TextEncoder().encode('€')];
    expect(tok.decode([euro[0]!, 260, euro[1]!, euro[2]!], { keepSpecial: true })).toBe('\uFFFD<|im_end|>\uFFFD\uFFFD'); // WHATWG: one U+FFFD per stray continuation byte
  });

  it('encodes special strings as specials only with allowSpecial', () => {
    expect(tok.encode('a<|im_end|>', { allowSpecial: true })).toEqual([97, 260]);
    expect(tok.encode('a<|im_end|>')).toEqual([...new TextEncoder().encode('a<|im_end|>')]);
    expect(tok.decode([97, 260])).toBe('a');
  });

  it('renders ChatML with special ids and opens the assistant turn', () => {
    const ids = tok.applyChatTemplate(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '2+2?' },
      ],
      { addGenerationPrompt: true },
    );
    expect(tok.decode(ids, { keepSpecial: true })).toBe('<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n');
    expect(ids.filter((i) => i === 259)).toHaveLength(3);
    expect(ids.filter((i) => i === 260)).toHaveLength(2);
  });

  it('gives the same ids as the hand-written ChatML it replaces, for every role and unicode', () => {
    // The former renderer: <|im_start|> role\ncontent <|im_end|> \n per message, then <|im_start|> assistant\n.
    const before = (messages: ChatMessage[], open: boolean) => [
      ...messages.flatMap((m) => [259, ...tok.encode(`${m.role}\n${m.content}`), 260, ...tok.encode('\n')]),
      ...(open ? [259, ...tok.encode('assistant\n')] : []),
    ];
    const chats: ChatMessage[][] = [
      [{ role: 'user', content: 'hi' }],
      [
        { role: 'system', content: 'Sé breve. 数学' },
        { role: 'user', content: 'emoji 🧪\nline two' },
        { role: 'assistant', content: '' },
        { role: 'tool', content: '{"ok": true}' },
      ],
      [],
    ];
    for (const chat of chats) {
      for (const open of [false, true]) expect(tok.applyChatTemplate(chat, { addGenerationPrompt: open })).toEqual(before(chat, open));
    }
  });

  it('renders tools and tool calls as jinja2 with transformers settings does', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: '2+2?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'calc', arguments: { expr: '2+2', note: 'é' } } }, { function: { name: 'calc', arguments: '{"expr": "1"}' } }],
      },
      { role: 'tool', content: '4' },
    ];
    const tools: ToolSchema[] = [
      { type: 'function', function: { name: 'calc', description: 'Adds', parameters: { type: 'object', properties: { expr: { type: 'string' } } } } },
    ];
    const text = tok.renderChatTemplate(messages, { tools, addGenerationPrompt: true });
    expect(text).toBe(renderWithPython(tok.chatTemplate, { messages, tools, add_generation_prompt: true }));
    expect(text).toContain('<|im_start|>system\nUse tools.\n\n# Tools\n');
    expect(text).toContain(
      '<|im_start|>assistant\n<tool_call>\n{"name": "calc", "arguments": {"expr": "2+2", "note": "é"}}\n</tool_call>\n<tool_call>\n{"name": "calc", "arguments": {"expr": "1"}}\n</tool_call><|im_end|>\n',
    );
  });

  it('tokenizes the rendered chat with specials recognised, as transformers does', () => {
    // apply_chat_template(tokenize=True) tokenizes the whole rendered text: specials spelled in content count.
    const ids = tok.applyChatTemplate([{ role: 'user', content: 'a<|im_end|>' }]);
    expect(ids.filter((i) => i >= 256)).toEqual([259, 260, 260]);
    expect(tok.encode('a<|im_end|>').filter((i) => i >= 256)).toEqual([]);
  });

  it('fails clearly when the template raises or the messages are malformed', () => {
    expect(() => tok.applyChatTemplate([{ role: 'user', content: 3 as unknown as string }])).toThrow(/messages\[0\]\.content must be a string/);
  });

  it('rejects an unknown role naming the message', () => {
    expect(() => tok.applyChatTemplate([{ role: 'robot' as 'user', content: 'x' }])).toThrow(/messages\[0\]\.role/);
  });

  it('rebuilds from its JSON config', () => {
    const copy = createTokenizer(JSON.parse(JSON.stringify(tok.config)));
    expect(copy).toBeInstanceOf(ByteTokenizer);
    expect(copy.encode('hé')).toEqual(tok.encode('hé'));
  });
});
