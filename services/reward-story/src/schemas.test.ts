import { formatPath } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { MAX_HISTORY_TURNS, MAX_TEXT_CHARS } from './core/story-item.ts';
import { resolveContext } from './core/story-context.ts';
import { STORY } from './core/testing/story-fixture.ts';
import { StoryScoreRequest } from './schemas.ts';

// One StoryContext schema judges both places a context can come from: `context`
// at the edge (a bad one fails the request) and `extra_info` in the core (a bad
// one is the item's invalid_params). Both must name the same field for the same fault.
const atEdge = (c: unknown) => {
  const r = StoryScoreRequest.safeParse({ items: [{ data_source: 'story', solution_str: 'x', context: c }] });
  const issue = r.error?.issues[0];
  return issue === undefined ? 'ok' : `${formatPath(issue.path.slice(3))}: ${issue.message}`;
};
const inExtraInfo = (c: object) => {
  try {
    resolveContext({ data_source: 'story', solution_str: 'x', extra_info: { ...c } });
    return 'ok';
  } catch (err) {
    return (err as Error).message.replace(/^extra_info\./, '');
  }
};

describe('StoryContext in `context` and in `extra_info`', () => {
  it('accepts and rejects the same contexts, naming the same field', () => {
    const cases: object[] = [
      STORY,
      { ...STORY, conversation_history: Array.from({ length: MAX_HISTORY_TURNS + 1 }, () => ({ role: 'user', content: 'x' })) },
      { ...STORY, conversation_history: [{ role: '', content: 'x' }] },
      { ...STORY, output_format: { type: 'regex', pattern: '.*', flags: 'q' } },
      { ...STORY, output_format: { type: 'xml' } },
      { ...STORY, output_format: 'x'.repeat(MAX_TEXT_CHARS + 1) },
      { ...STORY, output_format: null, target_response: 3 },
    ];
    for (const c of cases) expect(atEdge(c)).toEqual(inExtraInfo(c));
    expect(atEdge(cases[0])).toBe('ok');
    expect(cases.slice(1).every((c) => atEdge(c) !== 'ok')).toBe(true);
  });
});
