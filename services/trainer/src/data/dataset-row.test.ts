import { describe, expect, it } from 'vitest';
import type { DataRow } from '@rl/datasets';
import { toDatasetRow } from './dataset-row.ts';

const origin = { path: 'story.parquet', fileIndex: 0, row: 0, rowId: 0 };

describe('toDatasetRow', () => {
  it('passes columns verl does not interpret to the reward service in extra_info (story converter output)', () => {
    const row = toDatasetRow(
      {
        data_source: 'story',
        prompt: [
          { role: 'system', content: 'A knight...' },
          { role: 'user', content: 'I ask the knight.' },
        ],
        reward_model: { ground_truth: 'He answers.', style: 'model' },
        extra_info: { index: 3, turn: 1, conversation_id: 'c1' },
        story_content: 'A knight guards the gate.',
        user_input: 'I ask the knight.',
        conversation_history: [],
        output_format: 'plain prose',
        target_response: 'He answers.',
        prompt_without_context: [
          { role: 'system', content: 'Narrate.' },
          { role: 'user', content: 'I ask the knight.' },
        ],
        ability: 'story',
      },
      origin,
      { promptKey: 'prompt', defaultDataSource: null },
    );
    expect(row.extra_info).toEqual({
      index: 3,
      turn: 1,
      conversation_id: 'c1',
      story_content: 'A knight guards the gate.',
      user_input: 'I ask the knight.',
      conversation_history: [],
      output_format: 'plain prose',
      target_response: 'He answers.',
    });
    expect(row.ground_truth).toBe('He answers.');
    // The prompt without r is the policy's input, not the reward's.
    expect(row.prompt_without_context).toEqual([
      { role: 'system', content: 'Narrate.' },
      { role: 'user', content: 'I ask the knight.' },
    ]);
  });

  it('reads the prompt without r from data.prompt_without_context_key, null when absent, and names a malformed one', () => {
    const opts = { promptKey: 'prompt', defaultDataSource: null, withoutContextKey: 'bare' };
    expect(toDatasetRow({ prompt: 'p', data_source: 'x', bare: 'q' }, origin, opts).prompt_without_context).toBe('q');
    expect(toDatasetRow({ prompt: 'p', data_source: 'x', bare: null }, origin, opts).prompt_without_context).toBeNull();
    expect(toDatasetRow({ prompt: 'p', data_source: 'x' }, origin, opts).prompt_without_context).toBeNull();
    expect(() => toDatasetRow({ prompt: 'p', data_source: 'x', bare: [{ role: 'user' }] }, origin, opts)).toThrow(
      'story.parquet row 0: bare[0] must be a {role, content} message',
    );
  });

  it('never lets a column override a key extra_info already has', () => {
    const row = toDatasetRow({ prompt: 'p', data_source: 'x', extra_info: { user_input: 'kept' }, user_input: 'ignored' }, origin, {
      promptKey: 'prompt',
      defaultDataSource: null,
    });
    expect(row.extra_info.user_input).toBe('kept');
  });

  it('keeps columns and struct fields named after prototype members as data (no prototype is replaced or read)', () => {
    const cells = JSON.parse('{"prompt": "p", "data_source": "x", "extra_info": {"__proto__": {"a": 1}}, "constructor": "c", "toString": "t"}') as DataRow;
    const row = toDatasetRow(cells, origin, { promptKey: 'prompt', defaultDataSource: null });
    expect(Object.getPrototypeOf(row.extra_info)).toBe(Object.prototype);
    expect(Object.keys(row.extra_info)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(JSON.parse(JSON.stringify(row.extra_info))).toEqual(JSON.parse('{"__proto__": {"a": 1}, "constructor": "c", "toString": "t"}'));
  });
});
