import { describe, expect, it } from 'vitest';
import { ScenarioFile, StoryScenario } from './scenario.ts';
import { scenario } from './testing/scenario.ts';

const problems = (value: unknown) => {
  const r = StoryScenario.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('StoryScenario', () => {
  it('accepts a complete scenario', () => {
    expect(problems(scenario())).toEqual([]);
  });

  it('requires the malformed reply exactly when a format spec is given', () => {
    const { malformed: _m, ...noMalformed } = scenario().replies;
    expect(problems(scenario({ replies: noMalformed }))).toEqual(['replies.malformed: required when output_format is given']);
    const { output_format: _f, ...noFormat } = scenario().context;
    expect(problems(scenario({ context: noFormat }))).toEqual(['replies.malformed: only allowed with an output_format']);
    expect(problems(scenario({ context: noFormat, replies: noMalformed }))).toEqual([]);
  });

  it('rejects a good reply that copies the reference, a history without an assistant turn, a blank reference and a wrong id', () => {
    const s = scenario();
    expect(problems(scenario({ replies: { ...s.replies, good: s.context.target_response } }))).toEqual([
      'replies.good: must paraphrase the reference, not copy it',
    ]);
    expect(problems(scenario({ context: { ...s.context, conversation_history: [{ role: 'user', content: 'hi' }] } }))).toEqual([
      'context.conversation_history: needs an earlier assistant turn for the repetition reply to repeat',
    ]);
    expect(problems(scenario({ context: { ...s.context, target_response: '  ' } }))[0]).toMatch(/^context\.target_response: /);
    expect(problems(scenario({ id: 'zh-01' }))).toEqual(['id: must start with "en-"']);
    expect(problems({ ...scenario(), extra: 1 })[0]).toMatch(/^: Unrecognized key/);
  });

  it('a file rejects duplicate ids', () => {
    const r = ScenarioFile.safeParse([scenario(), scenario()]);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual(['duplicate id en-01']);
  });
});
