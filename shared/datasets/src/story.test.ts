import { describe, expect, it } from 'vitest';
import { parseStoryRecord } from './story-record.ts';
import { buildSystemPrompt, DEFAULT_STORY_OPTIONS, storySamples, StoryContextPart, type StoryOptions } from './story.ts';

const OPTIONS: StoryOptions = { dataSource: 'my/story', instruction: 'Narrate.', outputFormat: 'Prose only.', context: StoryContextPart.Story };
const SYSTEM = 'Narrate.\n\nA ship at sea.\n\nProse only.';
const turn = (from: string, value: string) => ({ from, value });

describe('buildSystemPrompt', () => {
  it('joins instruction, story and output format with blank lines, leaving empty parts out', () => {
    expect(buildSystemPrompt('A ship at sea.', OPTIONS)).toBe(SYSTEM);
    expect(buildSystemPrompt('Story.', { instruction: '', outputFormat: '  ' })).toBe('Story.');
    expect(buildSystemPrompt('', DEFAULT_STORY_OPTIONS)).toBe(`${DEFAULT_STORY_OPTIONS.instruction}\n\n${DEFAULT_STORY_OPTIONS.outputFormat}`);
  });
});

describe('storySamples', () => {
  it('makes sample k from the system prompt, the first k user turns and the k-1 replies between them', () => {
    const record = parseStoryRecord(
      {
        system: 'A ship at sea.',
        conversations: [turn('user', 'u1'), turn('assistant', 'a1'), turn('user', 'u2'), turn('assistant', 'a2'), turn('user', 'u3'), turn('assistant', 'a3')],
      },
      'line 1',
    );
    const samples = storySamples(record, 'conv-1', 10, OPTIONS);
    expect(samples).toHaveLength(3);
    expect(samples[1]).toEqual({
      data_source: 'my/story',
      prompt: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'u1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'u2' },
      ],
      prompt_without_context: [
        { role: 'system', content: 'Narrate.\n\nProse only.' },
        { role: 'user', content: 'u1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'u2' },
      ],
      ability: 'story',
      reward_model: { ground_truth: 'a2', style: 'model' },
      extra_info: { conversation_id: 'conv-1', index: 11, turn: 2 },
      system_prompt: SYSTEM,
      conversation_history: [
        { role: 'user', content: 'u1' },
        { role: 'assistant', content: 'a1' },
      ],
      story_content: 'A ship at sea.',
      user_input: 'u2',
      output_format: 'Prose only.',
      target_response: 'a2',
    });
    expect(samples.map((s) => [s.extra_info.turn, s.extra_info.index, s.user_input, s.target_response, s.prompt.length])).toEqual([
      [1, 10, 'u1', 'a1', 2],
      [2, 11, 'u2', 'a2', 4],
      [3, 12, 'u3', 'a3', 6],
    ]);
    expect(samples[0]!.conversation_history).toEqual([]);
  });

  it('leaves out of prompt_without_context the story setting, the earlier turns, or both (--context)', () => {
    const record = parseStoryRecord(
      { system: 'A ship at sea.', conversations: [turn('user', 'u1'), turn('assistant', 'a1'), turn('user', 'u2'), turn('assistant', 'a2')] },
      'line 1',
    );
    const without = (context: StoryContextPart) => storySamples(record, 'c', 0, { ...OPTIONS, context })[1]!.prompt_without_context;
    const u2 = { role: 'user', content: 'u2' };
    const history = [
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: 'a1' },
    ];
    expect(without(StoryContextPart.Story)).toEqual([{ role: 'system', content: 'Narrate.\n\nProse only.' }, ...history, u2]);
    expect(without(StoryContextPart.History)).toEqual([{ role: 'system', content: SYSTEM }, u2]);
    expect(without(StoryContextPart.Both)).toEqual([{ role: 'system', content: 'Narrate.\n\nProse only.' }, u2]);
    // Nothing left of the system prompt: no empty system message.
    const bare = storySamples(record, 'c', 0, { ...OPTIONS, instruction: '', outputFormat: '', context: StoryContextPart.Both });
    expect(bare[1]!.prompt_without_context).toEqual([u2]);
    expect(bare[1]!.prompt[0]).toEqual({ role: 'system', content: 'A ship at sea.' });
  });

  it('keeps an opening assistant turn as context and makes no sample for a trailing user turn', () => {
    const record = parseStoryRecord(
      { system: 's', conversations: [turn('gpt', 'Welcome.'), turn('human', 'u1'), turn('gpt', 'a1'), turn('human', 'tail')] },
      'line 1',
    );
    const samples = storySamples(record, 'c', 0, OPTIONS);
    expect(samples).toHaveLength(1);
    expect(samples[0]!.prompt.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    expect(samples[0]!.conversation_history).toEqual([{ role: 'assistant', content: 'Welcome.' }]);
    expect(samples[0]!.target_response).toBe('a1');
  });

  it('answers merged user turns with one sample and keeps empty replies as empty targets', () => {
    const record = parseStoryRecord({ system: 's', conversations: [turn('user', 'a'), turn('user', 'b'), turn('assistant', '')] }, 'line 1');
    const [sample, ...rest] = storySamples(record, 'c', 0, OPTIONS);
    expect(rest).toEqual([]);
    expect(sample!.user_input).toBe('a\nb');
    expect(sample!.target_response).toBe('');
    expect(sample!.reward_model.ground_truth).toBe('');
  });

  it('makes nothing from conversations without an answered user turn', () => {
    for (const conversations of [[], [turn('user', 'only')], [turn('assistant', 'only')]]) {
      expect(storySamples(parseStoryRecord({ system: 's', conversations }, 'line 1'), 'c', 0, OPTIONS)).toEqual([]);
    }
  });
});
