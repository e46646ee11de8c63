import { describe, expect, it } from 'vitest';
import * as core from './core/story-item.ts';
import { STORY } from './core/testing/story-fixture.ts';
import { StoryContext } from './schemas.ts';

// schemas.ts rebuilds two context fields around its named components (StoryTurn,
// OutputFormat); the edge (`context`) and the core (`extra_info`) must still judge alike.
const outcome = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  r.success ? 'ok' : r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('StoryContext on the edge and in the core', () => {
  it('accepts and rejects the same contexts with the same issues', () => {
    const cases: unknown[] = [
      STORY,
      { ...STORY, conversation_history: Array.from({ length: core.MAX_HISTORY_TURNS + 1 }, () => ({ role: 'user', content: 'x' })) },
      { ...STORY, conversation_history: [{ role: '', content: 'x' }] },
      { ...STORY, output_format: { type: 'regex', pattern: '.*', flags: 'q' } },
      { ...STORY, output_format: { type: 'xml' } },
      { ...STORY, output_format: 'x'.repeat(core.MAX_TEXT_CHARS + 1) },
      { ...STORY, output_format: null, target_response: 3 },
    ];
    for (const c of cases) expect(outcome(StoryContext.safeParse(c))).toEqual(outcome(core.StoryContext.safeParse(c)));
    expect(outcome(StoryContext.safeParse(cases[0]))).toBe('ok');
  });
});
