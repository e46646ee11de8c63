import { AppError } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { createJudgeBackends } from './create-judge-backends.ts';

const valid = {
  base_url: 'http://127.0.0.1:9/v1',
  model: 'm',
  prompt: 'Rate {{ response }}',
  parser: "{type: pattern, pattern: 'Score: (\\d+)'}",
};

/** A one-judge file with `over` replacing or adding keys (raw YAML values). */
function file(over: Record<string, string | undefined> = {}): string {
  const keys = { ...valid, ...over };
  const lines = Object.entries(keys)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `    ${k}: ${v}`);
  return `judges:\n  q:\n${lines.join('\n')}\n`;
}

function configError(text: string, env: Record<string, string> = {}): string {
  try {
    createJudgeBackends(text, env, { where: 'judges.yaml' });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_config');
    return (err as AppError).message;
  }
  throw new Error('no error');
}

describe('createJudgeBackends', () => {
  it('builds one judge backend per entry', () => {
    const two = `${file()}  r:\n    base_url: https://api.example.com/v1\n    model: m\n    prompt: x\n    parser: {type: boxed}\n    api_key_env: R_KEY\n`;
    const backends = createJudgeBackends(two, { R_KEY: 'k' });
    expect(backends.map((b) => [b.name, b.kind])).toEqual([
      ['q', 'judge'],
      ['r', 'judge'],
    ]);
  });

  it('takes an empty file as no judges', () => {
    expect(createJudgeBackends('', {})).toEqual([]);
  });

  it.each([
    ['not YAML', 'judges: [oops', /judges\.yaml: not valid YAML/],
    ['an unknown key', file({ temperature: '0' }), /judges\.q: Unrecognized key: "temperature"/],
    ['a missing prompt', file({ prompt: undefined }), /judges\.q\.prompt/],
    ['a base_url that is not http', file({ base_url: 'file:///etc/passwd' }), /judges\.q\.base_url/],
    ['an unknown parser', file({ parser: '{type: vibes}' }), /judges\.q\.parser\.type/],
    ['a bad score range', file({ score_range: '[10, 1]' }), /judges\.q\.score_range/],
    ['zero concurrency', file({ limits: '{max_concurrent: 0}' }), /judges\.q\.limits\.max_concurrent/],
    ['a bad judge name', file().replace('  q:', '  "q r":'), /judges\.q r: Invalid key/],
    [
      'a regex that does not compile',
      file({ parser: "{type: pattern, pattern: 'Score: (\\d+'}" }),
      /judges\.q\.parser\.pattern: not a valid regular expression/,
    ],
    ['a regex without a group', file({ parser: "{type: pattern, pattern: 'Score: \\d+'}" }), /judges\.q\.parser\.pattern: needs a capture group/],
    ['a template that does not compile', file({ prompt: "'{{ response '" }), /judges\.q\.prompt: not a valid jinja template/],
    ['a yes_no judge with a range', file({ parser: '{type: yes_no}', score_range: '[1, 10]' }), /judges\.q\.score_range/],
    ['an API key variable that is not set', file({ api_key_env: 'JUDGE_KEY' }), /judges\.q\.api_key_env: the environment variable JUDGE_KEY is not set/],
  ])('refuses %s, naming the key', (_what, text, want) => {
    expect(configError(text)).toMatch(want);
  });
});
