import { describe, expect, it } from 'vitest';
import { parseStoryRecord } from './story-record.ts';

const turn = (from: unknown, value: unknown) => ({ from, value });

describe('parseStoryRecord', () => {
  it('accepts user/assistant and ShareGPT human/gpt, keeping the text as is', () => {
    const r = parseStoryRecord(
      { system: 'A castle.', id: 7, conversations: [turn('human', ' hi '), turn('gpt', 'hello'), turn('user', 'x'), turn('assistant', 'y')] },
      'line 1',
    );
    expect(r).toEqual({
      storyContent: 'A castle.',
      id: '7',
      turns: [
        { role: 'user', content: ' hi ' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'y' },
      ],
      notes: { emptyTurns: 0, mergedTurns: 0, leadingAssistantTurns: 0, trailingUserTurns: 0 },
    });
  });

  it('merges consecutive turns of one role with "\\n", leaving empty parts out, and counts what it saw', () => {
    const r = parseStoryRecord(
      {
        system: '',
        conversations: [
          turn('gpt', 'Welcome.'),
          turn('user', 'a'),
          turn('user', ''),
          turn('human', 'b'),
          turn('gpt', ''),
          turn('gpt', 'c'),
          turn('user', 'tail'),
        ],
      },
      'record 0',
    );
    expect(r.turns).toEqual([
      { role: 'assistant', content: 'Welcome.' },
      { role: 'user', content: 'a\nb' },
      { role: 'assistant', content: 'c' },
      { role: 'user', content: 'tail' },
    ]);
    expect(r.notes).toEqual({ emptyTurns: 2, mergedTurns: 3, leadingAssistantTurns: 1, trailingUserTurns: 1 });
    expect(r.id).toBeUndefined();
  });

  it('counts whitespace-only turns as empty but keeps them', () => {
    const r = parseStoryRecord({ system: 's', conversations: [turn('user', ' \n'), turn('assistant', '')] }, 'line 2');
    expect(r.turns).toEqual([
      { role: 'user', content: ' \n' },
      { role: 'assistant', content: '' },
    ]);
    expect(r.notes.emptyTurns).toBe(2);
  });

  const broken: Array<[string, unknown, string]> = [
    ['not an object', [1, 2], 'record 3: expected an object, got an array'],
    ['missing system', { conversations: [] }, 'record 3: system: expected a string, got nothing'],
    ['non-string system', { system: 5, conversations: [] }, 'record 3: system: expected a string, got number 5'],
    ['missing conversations', { system: 's' }, 'record 3: conversations: expected an array, got nothing'],
    ['conversations not a list', { system: 's', conversations: { from: 'user' } }, 'record 3: conversations: expected an array, got an object'],
    ['turn not an object', { system: 's', conversations: ['hi'] }, 'record 3: conversations[0]: expected an object'],
    [
      'unknown from',
      { system: 's', conversations: [turn('user', 'a'), turn('gpt', 'b'), turn('bot', 'c')] },
      'record 3: conversations[2].from: expected "user" or "assistant" (or "human"/"gpt"), got "bot"',
    ],
    ['system inside conversations', { system: 's', conversations: [turn('system', 'a')] }, 'record 3: conversations[0].from: expected "user" or "assistant"'],
    ['missing from', { system: 's', conversations: [{ value: 'a' }] }, 'record 3: conversations[0].from: expected "user" or "assistant", got nothing'],
    [
      'non-string value',
      { system: 's', conversations: [turn('user', 'a'), turn('gpt', ['b'])] },
      'record 3: conversations[1].value: expected a string, got an array',
    ],
    ['null value', { system: 's', conversations: [turn('user', null)] }, 'record 3: conversations[0].value: expected a string, got null'],
    ['odd id', { system: 's', conversations: [], id: { a: 1 } }, 'record 3: id: expected a string or number'],
  ];
  it.each(broken)('rejects a record with %s, naming the record and the field', (_name, raw, message) => {
    expect(() => parseStoryRecord(raw, 'record 3')).toThrow(expect.objectContaining({ code: 'validation_failed', message: expect.stringContaining(message) }));
  });
});
