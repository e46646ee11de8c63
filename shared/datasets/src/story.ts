import { fieldsOf, scalar, structOf, type Field } from './data-type.ts';
import type { StoryRecord, StoryTurn } from './story-record.ts';
import { MESSAGE_LIST, REWARD_MODEL, type Message } from './verl-fields.ts';

/**
 * Which part of a sample's prompt is the extra context r whose information the
 * story reward's `info_gain` measures: `prompt_without_context` is the prompt
 * with r left out. story = the story setting in the system prompt; history =
 * the turns before the current user turn; both = both of them.
 */
export const StoryContextPart = { Story: 'story', History: 'history', Both: 'both' } as const;
export type StoryContextPart = (typeof StoryContextPart)[keyof typeof StoryContextPart];

/** How story samples are worded and labelled. */
export interface StoryOptions {
  /** verl `data_source`, which picks the reward function. @default "story" */
  dataSource: string;
  /** Text put before the story setting in the system prompt. */
  instruction: string;
  /** Text put after the story setting in the system prompt. */
  outputFormat: string;
  /** What `prompt_without_context` leaves out. @default "story" */
  context: StoryContextPart;
}

/** Defaults of {@link StoryOptions}. */
export const DEFAULT_STORY_OPTIONS: Readonly<StoryOptions> = {
  dataSource: 'story',
  instruction:
    "You are the narrator of an interactive story. Continue the story from the user's latest message, staying consistent with the setting below and with everything that has happened so far.",
  outputFormat: 'Reply with the next part of the story only, as plain prose: no headings, lists or notes about what you are doing.',
  context: StoryContextPart.Story,
};

/** One verl training sample made from one assistant reply of a conversation. */
export interface StorySample {
  data_source: string;
  prompt: Message[];
  /** The same prompt without the context r (see {@link StoryContextPart}). */
  prompt_without_context: Message[];
  ability: 'story';
  reward_model: { ground_truth: string; style: 'model' };
  extra_info: { conversation_id: string; index: number; turn: number };
  system_prompt: string;
  conversation_history: Message[];
  story_content: string;
  user_input: string;
  output_format: string;
  target_response: string;
}

/** Columns of a story parquet file, in this order. */
export const STORY_FIELDS: Field[] = fieldsOf({
  data_source: scalar('string'),
  prompt: MESSAGE_LIST,
  prompt_without_context: MESSAGE_LIST,
  ability: scalar('string'),
  reward_model: REWARD_MODEL,
  extra_info: structOf({ conversation_id: scalar('string'), index: scalar('int64'), turn: scalar('int64') }),
  system_prompt: scalar('string'),
  conversation_history: MESSAGE_LIST,
  story_content: scalar('string'),
  user_input: scalar('string'),
  output_format: scalar('string'),
  target_response: scalar('string'),
});

/** instruction + story setting + output format, blank-line separated; an empty part is left out. */
export function buildSystemPrompt(storyContent: string, options: Pick<StoryOptions, 'instruction' | 'outputFormat'>): string {
  return [options.instruction, storyContent, options.outputFormat].filter((s) => s.trim() !== '').join('\n\n');
}

const message = (t: StoryTurn): Message => ({ role: t.role, content: t.content });

/**
 * One sample per assistant reply that answers a user turn: sample k's prompt is
 * the system prompt, the turns before the k-th user turn, and that user turn;
 * its target is the k-th reply. An opening assistant turn stays in the history
 * of every sample; a trailing user turn makes none.
 * `firstIndex` is the `extra_info.index` of the first sample (indices run on across a file).
 */
export function storySamples(record: StoryRecord, conversationId: string, firstIndex: number, options: StoryOptions): StorySample[] {
  const systemPrompt = buildSystemPrompt(record.storyContent, options);
  const dropStory = options.context !== StoryContextPart.History;
  const dropHistory = options.context !== StoryContextPart.Story;
  const systemWithout = dropStory ? buildSystemPrompt('', options) : systemPrompt;
  const samples: StorySample[] = [];
  record.turns.forEach((reply, i) => {
    const userTurn = record.turns[i - 1];
    if (reply.role !== 'assistant' || userTurn?.role !== 'user') return;
    const history = record.turns.slice(0, i - 1).map(message);
    samples.push({
      data_source: options.dataSource,
      prompt: [{ role: 'system', content: systemPrompt }, ...history, message(userTurn)],
      prompt_without_context: [
        ...(systemWithout === '' ? [] : [{ role: 'system', content: systemWithout }]),
        ...(dropHistory ? [] : history),
        message(userTurn),
      ],
      ability: 'story',
      reward_model: { ground_truth: reply.content, style: 'model' },
      extra_info: { conversation_id: conversationId, index: firstIndex + samples.length, turn: samples.length + 1 },
      system_prompt: systemPrompt,
      conversation_history: history,
      story_content: record.storyContent,
      user_input: userTurn.content,
      output_format: options.outputFormat,
      target_response: reply.content,
    });
  });
  return samples;
}
