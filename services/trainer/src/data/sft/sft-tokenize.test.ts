import { BYTE_SPECIALS, arithmeticTokenizer, createTokenizer, trainBpe } from '@rl/policy';
import { describe, expect, it } from 'vitest';
import { toSftExample, type SftColumns } from './sft-example.ts';
import { tokenizeSft } from './sft-tokenize.ts';

const tok = createTokenizer({ kind: 'byte' });
const origin = { path: 'train.parquet', fileIndex: 0, row: 3, rowId: 3 };
const single: SftColumns = {
  promptKey: 'extra_info',
  responseKey: 'extra_info',
  promptDictKeys: ['question'],
  responseDictKeys: ['answer'],
  messagesKey: null,
};
const text = (ids: number[]) => tok.decode(ids, { keepSpecial: true });

describe('toSftExample', () => {
  it('follows verl prompt_dict_keys / response_dict_keys into struct columns', () => {
    const ex = toSftExample({ extra_info: { question: 'Q?', answer: 'A.' } }, origin, single);
    expect(ex).toEqual({
      row_id: 3,
      messages: [
        { role: 'user', content: 'Q?' },
        { role: 'assistant', content: 'A.' },
      ],
      lossOn: 'last',
    });
  });

  it('takes a list of messages as the prompt (the RL prompt column as is)', () => {
    const cols = { ...single, promptKey: 'prompt', promptDictKeys: [] };
    const ex = toSftExample(
      {
        prompt: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'Q' },
        ],
        extra_info: { answer: 'A' },
      },
      origin,
      cols,
    );
    expect(ex.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
  });

  it('names the file, row and field of a bad value', () => {
    expect(() => toSftExample({ extra_info: { question: 'Q' } }, origin, single)).toThrow('train.parquet row 3: extra_info.answer must be a string');
    expect(() => toSftExample({ extra_info: 'x' }, origin, single)).toThrow('train.parquet row 3: extra_info must be a struct with key "question"');
    const multi = { ...single, messagesKey: 'messages' };
    expect(() => toSftExample({ messages: [{ role: 'user', content: 'hi' }] }, origin, multi)).toThrow('messages has no assistant message');
    expect(() => toSftExample({ messages: [{ role: 'narrator', content: 'x' }] }, origin, multi)).toThrow('messages[0].role must be one of');
  });
});

describe('tokenizeSft', () => {
  const ex = toSftExample({ extra_info: { question: 'Q?', answer: 'A.' } }, origin, single);

  it('learns the response and its EOS after the chat-templated prompt (verl SFTDataset)', () => {
    const s = tokenizeSft(ex, tok, 1024, 'error');
    expect(text(s.prompt)).toBe('<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\n');
    expect(text(s.response)).toBe('A.<|im_end|>');
    expect(s.lossMask).toEqual([1, 1, 1]);
  });

  it('multi-turn: every assistant turn is learned, other turns and headers are context', () => {
    const multi = toSftExample(
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: 'c' },
          { role: 'assistant', content: 'd' },
        ],
      },
      origin,
      { ...single, messagesKey: 'messages' },
    );
    const s = tokenizeSft(multi, tok, 1024, 'error');
    expect(text(s.prompt)).toBe('<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n');
    expect(text(s.response)).toBe('b<|im_end|>\n<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\nd<|im_end|>');
    const learned = s.response.filter((_, i) => s.lossMask[i] === 1);
    expect(text(learned)).toBe('b<|im_end|>d<|im_end|>');
  });

  it('multi-turn with tool calls: the turns are what the chat template adds for each message', () => {
    const s = tokenizeSft(
      {
        row_id: 7,
        lossOn: 'all',
        messages: [
          { role: 'user', content: '2+2?' },
          { role: 'assistant', content: '', tool_calls: [{ function: { name: 'calc', arguments: { expr: '2+2' } } }] },
          { role: 'tool', content: '4' },
          { role: 'assistant', content: '4.' },
        ],
      },
      tok,
      1024,
      'error',
    );
    const learned = s.response.filter((_, i) => s.lossMask[i] === 1);
    expect(text(learned)).toBe('<tool_call>\n{"name": "calc", "arguments": {"expr": "2+2"}}\n</tool_call><|im_end|>4.<|im_end|>');
    expect(text([...s.prompt, ...s.response])).toBe(
      `${tok.renderChatTemplate([{ role: 'user', content: '2+2?' }], { addGenerationPrompt: true })}${text(s.response)}`,
    );
    expect(text(s.response)).toContain('<|im_end|>\n<|im_start|>tool\n4<|im_end|>\n<|im_start|>assistant\n4.<|im_end|>');
  });

  it('appends the EOS when the template has no end-of-turn token (char tokenizer, raw prompts)', () => {
    const chars = arithmeticTokenizer();
    const s = tokenizeSft(
      {
        row_id: 0,
        lossOn: 'last',
        messages: [
          { role: 'user', content: '1,2' },
          { role: 'assistant', content: '3' },
        ],
      },
      chars,
      64,
      'error',
    );
    expect(s.prompt).toEqual(chars.encode('1,2'));
    expect(s.response).toEqual([...chars.encode('3'), chars.eosId]);
    expect(s.lossMask).toEqual([1, 1]);
  });

  it('refuses a conversation the template cannot render turn by turn, naming the row', () => {
    const bpe = trainBpe(['ab'], { vocabSize: 262, specials: BYTE_SPECIALS, minFrequency: 1 });
    const counting = createTokenizer({
      kind: 'hf',
      tokenizer: bpe,
      eosToken: '<|im_end|>',
      chatTemplate: '{{ messages | length }}{% for m in messages %}{{ m.content }}{% endfor %}',
    });
    const multi = {
      row_id: 9,
      lossOn: 'all' as const,
      messages: [
        { role: 'user' as const, content: 'a' },
        { role: 'assistant' as const, content: 'b' },
      ],
    };
    expect(() => tokenizeSft(multi, counting, 64, 'error')).toThrow('row 9: the chat template renders the turns before messages[1] differently');
  });

  it('truncation: error names the row, right cuts the end, left cuts the start', () => {
    const s = tokenizeSft(ex, tok, 1024, 'error');
    const total = s.prompt.length + s.response.length;
    expect(() => tokenizeSft(ex, tok, total - 1, 'error')).toThrow(`row 3: ${total} tokens, more than data.max_length (${total - 1})`);
    const right = tokenizeSft(ex, tok, total - 1, 'right');
    expect(right.prompt).toEqual(s.prompt);
    expect(right.response).toEqual(s.response.slice(0, -1));
    const left = tokenizeSft(ex, tok, total - 1, 'left');
    expect(left.prompt).toEqual(s.prompt.slice(1));
    expect(left.response).toEqual(s.response);
  });

  it('left truncation past the prompt makes the first kept response token the (unlearned) prompt', () => {
    const s = tokenizeSft(ex, tok, 1024, 'error');
    const left = tokenizeSft(ex, tok, 2, 'left');
    expect(left.prompt).toEqual([s.response[1]]);
    expect(left.response).toEqual([s.response[2]]);
    expect(left.lossMask).toEqual([1]);
    expect(left.prompt.length + left.response.length).toBe(2);
  });
});
