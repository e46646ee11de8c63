import type { StoryContext, StoryScoreItem } from '../story-item.ts';
import { DEFAULT_WEIGHTS } from '../weights.ts';
import { DEFAULT_TUNING, type RewardSettings } from '../tuning.ts';

/** Content words of the fixture story: the dimensions of the tests' bag-of-words embedder. */
export const STORY_VOCABULARY = [
  'knight',
  'castle',
  'gate',
  'night',
  'dragon',
  'village',
  'lantern',
  'name',
  'mill',
  'burned',
  'sword',
  'fight',
  'cave',
  'dawn',
  'sleeps',
  'fire',
  'fears',
  'shield',
  'bananas',
  'potassium',
  'sweet',
  'market',
] as const;

/** A hand-written role-play turn: the setting, two earlier exchanges, the user's new action. */
export const STORY: StoryContext = {
  story_content: 'A knight guards the castle gate at night. A dragon threatens the village below the castle.',
  conversation_history: [
    { role: 'user', content: 'I walk up to the castle gate.' },
    { role: 'assistant', content: 'The knight at the gate raises his lantern and asks your name.' },
    { role: 'user', content: 'I tell him I come from the village.' },
    { role: 'assistant', content: 'He nods: the dragon burned the village mill last night.' },
  ],
  user_input: 'I ask the knight how to fight the dragon.',
  target_response: 'The knight says the dragon fears fire.',
  output_format: { type: 'regex', pattern: String.raw`(?s)\*[^*]+\*.+` },
};

/** Replies to the fixture turn. */
export const REPLIES = {
  /** On topic, new, beats the reference, in the format (an *action* then speech). */
  good: '*The knight draws his sword.* "Fight the dragon at dawn, while it sleeps in its cave above the village. It fears fire: bring a torch and my shield."',
  /** In the format, about something else. */
  offTopic: '*She smiles.* "Bananas are sweet and full of potassium; buy them at the market."',
  /** The second assistant turn again, wrapped in the format. */
  copy: '*He nods.* The dragon burned the village mill last night.',
  /** The good reply's words without the *action* the format asks for. */
  malformed:
    'The knight draws his sword. "Fight the dragon at dawn, while it sleeps in its cave above the village. It fears fire: bring a torch and my shield."',
} as const;

/** A story item with `context` (or overrides). */
export function storyItem(solution: string, overrides: Partial<StoryScoreItem> = {}): StoryScoreItem {
  return { data_source: 'story', solution_str: solution, context: STORY, ...overrides };
}

/** Default settings, as the service starts with no env. */
export const SETTINGS: RewardSettings = { weights: DEFAULT_WEIGHTS, tuning: DEFAULT_TUNING };
