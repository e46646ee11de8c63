import { describe, expect, it } from 'vitest';
import type { StoryScoreItem } from './story-item.ts';
import { earlierReplies, recentTurns, resolveContext } from './story-context.ts';
import { expectAppError } from '@rl/service-kit/testing';
import { STORY, storyItem } from './testing/story-fixture.ts';

const resolveError = (item: StoryScoreItem) => expectAppError(() => resolveContext(item));

describe('resolveContext', () => {
  it('reads `context`', () => {
    const ctx = resolveContext(storyItem('x'));
    expect(ctx).toMatchObject({ story: STORY.story_content, userInput: STORY.user_input, reference: STORY.target_response });
    expect(ctx.outputFormat).toEqual({ spec: STORY.output_format, field: 'context.output_format' });
  });

  it('reads the same keys from extra_info, also as JSON text (parquet columns), next to other keys', () => {
    const item: StoryScoreItem = {
      data_source: 'story',
      solution_str: 'x',
      extra_info: {
        index: 3,
        turn: 2,
        ...STORY,
        conversation_history: JSON.stringify(STORY.conversation_history),
        output_format: JSON.stringify(STORY.output_format),
      },
    };
    const ctx = resolveContext(item);
    expect(ctx).toEqual({ ...resolveContext(storyItem('x')), outputFormat: { spec: STORY.output_format, field: 'extra_info.output_format' } });
  });

  it('takes the reference from target_response, else ground_truth; blank means none', () => {
    expect(resolveContext(storyItem('x', { ground_truth: 'gt' })).reference).toBe(STORY.target_response);
    expect(resolveContext(storyItem('x', { context: { ...STORY, target_response: null }, ground_truth: 'gt' })).reference).toBe('gt');
    expect(resolveContext(storyItem('x', { context: { ...STORY, target_response: '  ' }, ground_truth: '' })).reference).toBeUndefined();
  });

  it('has no format to check for an absent, null or empty output_format, or the converter’s prose instruction', () => {
    const { output_format: _f, ...rest } = STORY;
    expect(resolveContext(storyItem('x', { context: rest })).outputFormat).toBeUndefined();
    expect(resolveContext(storyItem('x', { context: { ...STORY, output_format: null } })).outputFormat).toBeUndefined();
    const prose = 'Reply with the next part of the story only, as plain prose: no headings, lists or notes about what you are doing.';
    expect(resolveContext(storyItem('x', { context: { ...STORY, output_format: prose } })).outputFormat).toBeUndefined();
    for (const output_format of ['', prose]) {
      expect(resolveContext({ data_source: 's', solution_str: 'x', extra_info: { ...rest, output_format } }).outputFormat).toBeUndefined();
    }
  });

  it('reads an output_format given as JSON text of a spec', () => {
    const text = ` ${JSON.stringify(STORY.output_format)}`;
    expect(resolveContext(storyItem('x', { context: { ...STORY, output_format: text } })).outputFormat).toEqual({
      spec: STORY.output_format,
      field: 'context.output_format',
    });
  });

  it('names the field when the context is missing or malformed', () => {
    const cases: Array<[StoryScoreItem, RegExp]> = [
      [{ data_source: 's', solution_str: 'x' }, /^context: missing/],
      [{ data_source: 's', solution_str: 'x', extra_info: { index: 1 } }, /^context: missing/],
      [{ data_source: 's', solution_str: 'x', extra_info: { ...STORY, user_input: 7 } }, /^extra_info\.user_input: /],
      [{ data_source: 's', solution_str: 'x', extra_info: { ...STORY, story_content: undefined } }, /^extra_info\.story_content: /],
      [
        { data_source: 's', solution_str: 'x', extra_info: { ...STORY, conversation_history: [{ role: 'user', content: 1 }] } },
        /^extra_info\.conversation_history\[0\]\.content: /,
      ],
      [
        { data_source: 's', solution_str: 'x', extra_info: { ...STORY, conversation_history: '[{"role": "user"' } },
        /^extra_info\.conversation_history: .*JSON/,
      ],
      [{ data_source: 's', solution_str: 'x', extra_info: { ...STORY, output_format: '{"type": "regex", ' } }, /^extra_info\.output_format: .*not JSON/],
      [{ data_source: 's', solution_str: 'x', extra_info: { ...STORY, output_format: '{"type": "xml"}' } }, /^extra_info\.output_format\.type: /],
      [{ data_source: 's', solution_str: 'x', extra_info: { ...STORY, output_format: { type: 'xml' } } }, /^extra_info\.output_format: /],
      [storyItem('x', { context: { ...STORY, output_format: '{"type": "regex"}' } }), /^context\.output_format\.pattern: /],
    ];
    for (const [item, message] of cases) {
      const err = resolveError(item);
      expect(err.code).toBe('invalid_params');
      expect(err.message).toMatch(message);
    }
  });
});

describe('which turns the components compare with', () => {
  const history = [
    { role: 'system', content: 'rules' },
    { role: 'user', content: 'u1' },
    { role: 'assistant', content: 'a1' },
    { role: 'user', content: '   ' },
    { role: 'assistant', content: 'a2' },
    { role: 'user', content: 'u3' },
  ];

  it('recent turns: the last N non-blank user/assistant turns', () => {
    expect(recentTurns(history, 3)).toEqual(['a1', 'a2', 'u3']);
    expect(recentTurns(history, 10)).toEqual(['u1', 'a1', 'a2', 'u3']);
    expect(recentTurns(history, 0)).toEqual([]);
  });

  it('earlier replies: every non-blank assistant turn', () => {
    expect(earlierReplies(history)).toEqual(['a1', 'a2']);
    expect(earlierReplies([{ role: 'assistant', content: '' }])).toEqual([]);
  });
});
