import type { StoryScenario } from '../scenario.ts';

/** A valid scenario for tests, with a format spec (so every ordering applies); override any field. */
export function scenario(overrides: Partial<StoryScenario> = {}): StoryScenario {
  return {
    id: 'en-01',
    lang: 'en',
    split: 'dev',
    context: {
      story_content: 'A knight guards a castle.',
      conversation_history: [
        { role: 'user', content: 'I walk up to the gate.' },
        { role: 'assistant', content: '*The knight raises his lantern.* "Who goes there?"' },
      ],
      user_input: 'I ask the knight about the dragon.',
      target_response: '*The knight frowns.* "It sleeps in the cave."',
      output_format: { type: 'regex', pattern: String.raw`(?s)\*[^*]+\*.+` },
    },
    replies: {
      good: '*He lowers his voice.* "The beast rests in its lair."',
      off_topic: '*He shrugs.* "Ask me about bread."',
      repetition: '*The knight raises his lantern.* "Who goes there?"',
      generic: 'Okay.',
      malformed: 'He lowers his voice. "The beast rests in its lair."',
    },
    ...overrides,
  };
}
