import { describe, expect, it } from 'vitest';
import type { StoryExtra, StoryItemScore, StoryScoreItem } from './story-item.ts';
import { COMPONENTS } from './weights.ts';
import { createFormatChecker } from './format/format-checker.ts';
import { scoreBatch, type StorySlot } from './score-batch.ts';
import { bowEmbedder } from './testing/bow-embedder.ts';
import { REPLIES, SETTINGS, STORY, STORY_VOCABULARY, storyItem } from './testing/story-fixture.ts';

async function run(items: StoryScoreItem[], embedder = bowEmbedder(STORY_VOCABULARY)) {
  const slots = await scoreBatch(items, { embedder, formats: createFormatChecker(), settings: SETTINGS });
  return { slots, embedder };
}
function scored(slot: StorySlot | undefined): StoryItemScore {
  if (slot === undefined || 'error' in slot) throw new Error(`expected a score, got ${JSON.stringify(slot)}`);
  return slot;
}
const extraOf = async (item: StoryScoreItem): Promise<StoryExtra> => scored((await run([item])).slots[0]).extra;
const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);

describe('story reward on hand-written turns', () => {
  it('ranks a relevant, new, well-formatted reply above an off-topic one, a copy of an earlier turn and a malformed one', async () => {
    const { slots } = await run([REPLIES.good, REPLIES.offTopic, REPLIES.copy, REPLIES.malformed].map((r) => storyItem(r)));
    const [good, offTopic, copy, malformed] = slots.map((s) => scored(s));
    for (const worse of [offTopic, copy, malformed]) expect(good!.score).toBeGreaterThan(worse!.score);
    // Each loses on the component that describes its flaw.
    expect(offTopic!.extra.relevance).toBe(0);
    expect(copy!.extra.non_repetition).toBe(0);
    expect(malformed!.extra.format).toBe(0);
    expect(good!.extra).toMatchObject({ non_repetition: 1, format: 1 });
  });

  it('reports every component, the weights used and the total in extra; score = total', async () => {
    const extra = await extraOf(storyItem(REPLIES.good));
    expect(Object.keys(extra).sort()).toEqual(
      [
        ...COMPONENTS,
        'weights_used',
        'total',
        'model',
        'repeat_cosine',
        'repeat_overlap',
        'reference_delta',
        'brevity',
        'info_gain_nats',
        'entropy_nats',
      ].sort(),
    );
    const applied = COMPONENTS.filter((c) => extra[c] !== null);
    expect(applied).toEqual(['relevance', 'coherence', 'reference_recall', 'non_repetition', 'beyond_reference', 'format']);
    const sum = applied.reduce((s, c) => s + extra.weights_used[c]!, 0);
    expect(sum).toBeCloseTo(1, 12);
    expect(extra.total).toBeCloseTo(
      applied.reduce((s, c) => s + extra.weights_used[c]! * extra[c]!, 0),
      12,
    );
    expect(extra.model).toBe('bow-test');
  });

  it('reads the context from extra_info exactly as from `context`', async () => {
    const viaExtra: StoryScoreItem = {
      data_source: 'story',
      solution_str: REPLIES.good,
      extra_info: { index: 0, ...STORY, conversation_history: JSON.stringify(STORY.conversation_history) },
    };
    expect(await extraOf(viaExtra)).toEqual(await extraOf(storyItem(REPLIES.good)));
  });
});

describe('each component moves the way its definition says (bag-of-words embedder)', () => {
  const bare = { story_content: '', conversation_history: [], user_input: '' };

  it('relevance rises with the share of the user’s words in the reply', async () => {
    const context = { ...bare, user_input: 'knight dragon sword cave' };
    const values = await Promise.all(
      ['market bananas', 'knight market bananas', 'knight dragon market', 'knight dragon sword cave'].map(
        async (r) => (await extraOf(storyItem(r, { context }))).relevance!,
      ),
    );
    expect(increasing(values)).toBe(true);
    // Hand-computed: one shared word, reply of three vocabulary words, input of four: 1/(√3·2).
    expect(values[0]).toBe(0);
    expect(values[1]).toBeCloseTo(1 / (Math.sqrt(3) * 2), 6);
    expect(values[3]).toBeCloseTo(1, 6);
  });

  it('coherence rises as the reply takes up the setting and the recent turns', async () => {
    const context = {
      ...bare,
      story_content: 'castle gate night',
      conversation_history: [
        { role: 'user', content: 'lantern' },
        { role: 'assistant', content: 'mill burned' },
      ],
    };
    const values = await Promise.all(
      ['bananas', 'castle bananas', 'castle gate lantern', 'castle gate night lantern mill burned'].map(
        async (r) => (await extraOf(storyItem(r, { context }))).coherence!,
      ),
    );
    expect(increasing(values)).toBe(true);
  });

  it('non_repetition falls as the reply repeats an earlier assistant turn', async () => {
    const context = {
      ...bare,
      user_input: 'x',
      conversation_history: [{ role: 'assistant', content: 'The knight raises his lantern and asks your name at the gate.' }],
    };
    // Trigram overlap 0, 5/8, 9/10, 1 -> 1 - excess over 0.5: 1, 0.75, 0.2, 0 (cosines stay under 0.9).
    const replies = [
      'A dragon sleeps in the cave.',
      'The knight raises his lantern and asks about the dragon.',
      'The knight raises his lantern and asks your name at the mill.',
      'The knight raises his lantern and asks your name at the gate.',
    ];
    const values = await Promise.all(replies.map(async (r) => (await extraOf(storyItem(r, { context }))).non_repetition!));
    expect(values.map((v) => Number(v.toFixed(9)))).toEqual([1, 0.75, 0.2, 0]);
  });

  it('beyond_reference rises with the reply’s quality over the reference, and is 0 for a copy of it', async () => {
    const context = { ...bare, user_input: 'dragon cave fire', target_response: 'The dragon hides.' };
    const values = await Promise.all(
      ['The market sells bananas.', 'The dragon hides.!', 'The dragon is in its cave.', 'Fire drives the dragon from its cave.'].map(
        async (r) => (await extraOf(storyItem(r, { context }))).beyond_reference!,
      ),
    );
    expect(values[1]).toBe(0);
    expect(increasing([values[0]!, values[2]!, values[3]!])).toBe(true);
    expect(values[2]).toBeGreaterThan(0.5);
  });

  it('copied text earns no relevance or coherence: a repeated turn or a copied reference keeps only its novel share', async () => {
    const turn = 'The knight raises his lantern and asks your name at the gate.';
    const context = {
      ...bare,
      story_content: 'A knight guards the castle gate.',
      user_input: 'I ask the knight about the castle gate.',
      conversation_history: [{ role: 'assistant', content: turn }],
      target_response: 'The knight names the dragon at the castle.',
    };
    const [repeat, copiedRef, half, own] = await Promise.all(
      [turn, context.target_response, 'The knight raises his lantern and asks about the dragon.', 'The knight opens the castle gate.'].map((r) =>
        extraOf(storyItem(r, { context })),
      ),
    );
    for (const copy of [repeat!, copiedRef!]) expect(copy).toMatchObject({ relevance: 0, coherence: 0 });
    expect(repeat!.non_repetition).toBe(0);
    expect(copiedRef!.beyond_reference).toBe(0);
    expect(repeat!.beyond_reference).toBeLessThan(0.5); // its quality, all copied, counts as 0 against the reference's
    // Trigram overlap 5/8 with the earlier turn: non_repetition 0.75, and a quarter of the relevance is lost with it.
    expect(half!.non_repetition).toBeCloseTo(0.75, 9);
    const alone = await extraOf(storyItem('The knight raises his lantern and asks about the dragon.', { context: { ...context, conversation_history: [] } }));
    expect(alone.relevance).toBeGreaterThan(0);
    expect(half!.relevance).toBeCloseTo(0.75 * alone.relevance!, 6);
    expect(own).toMatchObject({ non_repetition: 1 });
    expect(own!.relevance).toBeGreaterThan(0);
    expect(own!.total).toBeGreaterThan(Math.max(repeat!.total, copiedRef!.total));
  });

  it('reference_recall is the token recall of the reference: the share of its vocabulary words the reply also says', async () => {
    const context = { ...bare, user_input: 'x', target_response: 'The knight fears the dragon and the fire.' };
    // Reference vocabulary words: knight, fears, dragon, fire (function words are zero states and weigh nothing).
    // The last reply's bag of words has cosine 4 / (2√5) ≈ 0.89 with the reference: under 0.9, not a copy.
    const values = await Promise.all(
      [
        'bananas at the market',
        'the knight sells bananas at the market',
        'a knight and a dragon meet at the market',
        'a dragon fears fire and the knight draws his sword',
      ].map(async (r) => (await extraOf(storyItem(r, { context }))).reference_recall!),
    );
    expect(values).toEqual([0, 0.25, 0.5, 1]);
  });

  it('falls back to the sentence cosine with the reference when the model gives no token states', async () => {
    const { embedTokens: _, ...pooledOnly } = bowEmbedder(STORY_VOCABULARY);
    const context = { ...bare, user_input: 'x', target_response: 'knight dragon fire fears' };
    const { slots } = await run([storyItem('the knight waits by the fire at the market', { context })], pooledOnly);
    // Reply vocabulary words knight, fire, market; reference four words: cos = 2 / (√3 · 2).
    expect(scored(slots[0]).extra.reference_recall).toBeCloseTo(1 / Math.sqrt(3), 6);
  });

  it('brevity: a reply shorter than half the reference keeps exp(1 - r/c) of its fit', async () => {
    const context = { ...bare, user_input: 'knight', target_response: 'The knight says that the dragon fears fire more than anything in the whole world.' };
    // The reference has 15 words, so r = 7.5; "The knight nods." has 3.
    const short = await extraOf(storyItem('The knight nods.', { context }));
    const b = Math.exp(1 - 7.5 / 3);
    expect(short.brevity).toBeCloseTo(b, 12);
    expect(short.relevance).toBeCloseTo(b * (1 / Math.sqrt(1)), 6);
    const long = await extraOf(storyItem('The knight nods and says the dragon fears fire, nothing else.', { context }));
    expect(long.brevity).toBe(1);
  });

  it('asks for token states once per batch, for the replies and references only', async () => {
    const embedder = bowEmbedder(STORY_VOCABULARY);
    await run([storyItem(REPLIES.good), storyItem(REPLIES.offTopic), storyItem(REPLIES.good, { context: { ...STORY, target_response: null } })], embedder);
    expect(embedder.tokenCalls).toEqual([[REPLIES.good, STORY.target_response, REPLIES.offTopic]]);
  });

  it('info_gain and entropy follow the signals', async () => {
    const withSignals = (gain: number, entropy: number) =>
      storyItem(REPLIES.good, {
        signals: { logprobs_with_context: [-1, -1], logprobs_without_context: [-1 - gain, -1 - gain], entropies: [entropy, entropy] },
      });
    const gains = await Promise.all([-1, 0, 1].map(async (g) => (await extraOf(withSignals(g, 1))).info_gain!));
    expect(increasing(gains)).toBe(true);
    expect(gains[1]).toBe(0.5);
    const entropies = await Promise.all([0, 1, 3].map(async (h) => (await extraOf(withSignals(0, h))).entropy!));
    expect(increasing(entropies)).toBe(true);
    expect(entropies[0]).toBe(0);
  });
});
