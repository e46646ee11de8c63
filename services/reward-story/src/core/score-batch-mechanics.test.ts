import { AppError } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import type { StoryScoreItem } from './story-item.ts';
import type { Embedder } from './embedder.ts';
import { createFormatChecker } from './format/format-checker.ts';
import { scoreBatch } from './score-batch.ts';
import { bowEmbedder } from './testing/bow-embedder.ts';
import { REPLIES, SETTINGS, STORY, STORY_VOCABULARY, storyItem } from './testing/story-fixture.ts';

const score = (items: StoryScoreItem[], embedder: Embedder = bowEmbedder(STORY_VOCABULARY)) =>
  scoreBatch(items, { embedder, formats: createFormatChecker(), settings: SETTINGS });

describe('batch mechanics', () => {
  it('embeds every distinct text of the batch in one call', async () => {
    const embedder = bowEmbedder(STORY_VOCABULARY);
    // A GRPO group: four replies to one turn share story, history, input and reference.
    await score(
      [REPLIES.good, REPLIES.offTopic, REPLIES.good, REPLIES.copy].map((r) => storyItem(r)),
      embedder,
    );
    expect(embedder.calls).toHaveLength(1);
    const texts = embedder.calls[0]!;
    expect(new Set(texts).size).toBe(texts.length);
    // 3 distinct replies + 4 history turns + input + story + reference.
    expect(texts).toHaveLength(10);
  });

  it('puts each bad item’s error in its own slot, keeps order, and embeds none of its texts', async () => {
    const embedder = bowEmbedder(STORY_VOCABULARY);
    const items: StoryScoreItem[] = [
      storyItem(REPLIES.good),
      storyItem('never embedded', { params: { weights: { relevance: -1 } } }),
      { data_source: 'story', solution_str: REPLIES.good },
      storyItem(REPLIES.good, { context: { ...STORY, output_format: { type: 'regex', pattern: '(?<=x)' } } }),
      storyItem(REPLIES.good, { signals: { logprobs_with_context: [-1], logprobs_without_context: [-1, -2] } }),
      storyItem(REPLIES.offTopic),
    ];
    const slots = await score(items, embedder);
    expect(slots.map((s) => ('error' in s ? s.error.code : 'score'))).toEqual([
      'score',
      'invalid_params',
      'invalid_params',
      'invalid_params',
      'invalid_params',
      'score',
    ]);
    const messages = slots.map((s) => ('error' in s ? s.error.message.split(':')[0] : ''));
    expect(messages).toEqual(['', 'params.weights.relevance', 'context', 'context.output_format.pattern', 'signals.logprobs_without_context', '']);
    expect(embedder.calls.flat()).not.toContain('never embedded');
    expect(slots[5]).toEqual((await score([storyItem(REPLIES.offTopic)]))[0]);
  });

  it('makes no embedding call when no item is valid', async () => {
    const embedder = bowEmbedder(STORY_VOCABULARY);
    const slots = await score([{ data_source: 's', solution_str: 'x' }], embedder);
    expect(slots[0]).toMatchObject({ error: { code: 'invalid_params' } });
    expect(embedder.calls).toEqual([]);
  });

  it('fails the whole batch when the embedder fails or miscounts', async () => {
    const failing: Embedder = { modelId: 'x', dim: 2, embed: () => Promise.reject(new AppError('unavailable', 'model not loaded')) };
    await expect(score([storyItem('x')], failing)).rejects.toMatchObject({ code: 'unavailable' });
    const short: Embedder = { modelId: 'x', dim: 2, embed: async () => [new Float32Array(2)] };
    await expect(score([storyItem('x')], short)).rejects.toMatchObject({ code: 'internal' });
  });
});

describe('weights and skipped components', () => {
  const only = async (item: StoryScoreItem) => {
    const [slot] = await score([item]);
    if (slot === undefined || 'error' in slot) throw new Error(JSON.stringify(slot));
    return slot;
  };

  it('per-request weights override the configured ones', async () => {
    const good = await only(storyItem(REPLIES.good, { params: { weights: { format: 0 } } }));
    const malformed = await only(storyItem(REPLIES.malformed, { params: { weights: { format: 0 } } }));
    expect(malformed.score).toBeCloseTo(good.score, 12);
    expect(good.extra.weights_used.format).toBe(0);
    const onlyRelevance = await only(
      storyItem(REPLIES.good, { params: { weights: { relevance: 1, coherence: 0, reference_recall: 0, non_repetition: 0, beyond_reference: 0, format: 0 } } }),
    );
    expect(onlyRelevance.score).toBeCloseTo(onlyRelevance.extra.relevance!, 12);
  });

  it('skips what the item does not carry and renormalises over the rest', async () => {
    const bare = await only(storyItem(REPLIES.good, { context: { story_content: '', conversation_history: [], user_input: STORY.user_input } }));
    expect(bare.extra).toMatchObject({
      coherence: null,
      reference_recall: null,
      brevity: null,
      non_repetition: null,
      beyond_reference: null,
      info_gain: null,
      entropy: null,
      format: null,
      repeat_cosine: null,
      reference_delta: null,
    });
    expect(bare.extra.weights_used.relevance).toBe(1);
    expect(bare.score).toBeCloseTo(bare.extra.relevance!, 12);

    const full = await only(
      storyItem(REPLIES.good, { signals: { logprobs_with_context: [-0.5, -1], logprobs_without_context: [-1, -1.5], entropies: [0.5, 1.5] } }),
    );
    expect(full.extra).toMatchObject({ info_gain_nats: 0.5, entropy_nats: 1 });
    expect(full.extra.info_gain).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    expect(Object.values(full.extra.weights_used).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('gives the item an invalid_params error when nothing that applies has weight', async () => {
    const [slot] = await score([
      storyItem(REPLIES.good, {
        context: { ...STORY, output_format: null, target_response: null, conversation_history: [], story_content: '' },
        params: { weights: { relevance: 0 } },
      }),
    ]);
    expect(slot).toMatchObject({ error: { code: 'invalid_params', message: expect.stringMatching(/^params\.weights: /) } });
  });
});
