import { z } from 'zod';
import { OutputFormat, StoryContext } from '../src/core/story-item.ts';

/**
 * One story scenario of the evaluation set: a role-play turn and replies to
 * it of known relative quality. The reward passes a check when it scores the
 * good reply strictly above one bad reply (see orderings.ts).
 */

/** Languages the set covers. */
export const ScenarioLang = z.enum(['zh', 'en']);
/** One of {@link ScenarioLang}. */
export type ScenarioLang = z.infer<typeof ScenarioLang>;

/** `dev` scenarios may be looked at while tuning a model; `test` ones are held out for reporting. */
export const ScenarioSplit = z.enum(['dev', 'test']);
/** One of {@link ScenarioSplit}. */
export type ScenarioSplit = z.infer<typeof ScenarioSplit>;

const reply = z.string().trim().min(1);

/** The replies of a scenario; the copy of the reference is `context.target_response` itself. */
export const ScenarioReplies = z.strictObject({
  /** Answers the user and carries the scene on, in its own words (a paraphrase, not a copy, of the reference). */
  good: reply,
  /** Reuses the user's words but talks about something unrelated to the story. */
  off_topic: reply,
  /** An earlier assistant turn said again (verbatim or nearly). */
  repetition: reply,
  /** A reply that fits any turn: "好的。", "Okay.". */
  generic: reply,
  /** The good reply's content, breaking `context.output_format`; required exactly when a format spec is given. */
  malformed: reply.optional(),
});
/** Parsed {@link ScenarioReplies}. */
export type ScenarioReplies = z.infer<typeof ScenarioReplies>;

/** One scenario: the context as the service takes it, plus the replies. */
export const StoryScenario = z
  .strictObject({
    id: z.string().regex(/^[a-z]{2}-\d{2,}$/, 'ids look like zh-01'),
    lang: ScenarioLang,
    split: ScenarioSplit,
    context: StoryContext.extend({
      target_response: z.string().trim().min(1),
      output_format: OutputFormat.optional(),
    }),
    replies: ScenarioReplies,
  })
  .superRefine((s, ctx) => {
    if (!s.id.startsWith(`${s.lang}-`)) ctx.addIssue({ code: 'custom', path: ['id'], message: `must start with "${s.lang}-"` });
    const hasFormat = s.context.output_format !== undefined;
    if (hasFormat !== (s.replies.malformed !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['replies', 'malformed'],
        message: hasFormat ? 'required when output_format is given' : 'only allowed with an output_format',
      });
    }
    if (!s.context.conversation_history.some((t) => t.role === 'assistant' && t.content.trim() !== '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['context', 'conversation_history'],
        message: 'needs an earlier assistant turn for the repetition reply to repeat',
      });
    }
    const { good } = s.replies;
    if (good === s.context.target_response) ctx.addIssue({ code: 'custom', path: ['replies', 'good'], message: 'must paraphrase the reference, not copy it' });
  });
/** Parsed {@link StoryScenario}. */
export type StoryScenario = z.infer<typeof StoryScenario>;

/** A scenario file: a JSON array of scenarios with distinct ids. */
export const ScenarioFile = z.array(StoryScenario).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((s, i) => {
    if (seen.has(s.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate id ${s.id}` });
    seen.add(s.id);
  });
});
