import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { runToolCall, truncateToolText } from './run-tool.ts';
import type { Tool } from './tool.ts';

const never = new AbortController().signal;
const ctxOf = (tools: Tool[], deadline = () => new AbortController().signal, signal = never) => ({
  tools: new Map(tools.map((t) => [t.name, t])),
  toolsKwargs: { echo: { create_kwargs: { ground_truth: '7' } } },
  turn: 2,
  deadline,
  signal,
});
const tool = (execute: Tool['execute']): Tool => ({
  name: 'echo',
  timeoutMs: 10,
  schema: { type: 'function', function: { name: 'echo', description: '', parameters: { type: 'object', properties: {}, required: [] } } },
  execute,
});

describe('runToolCall', () => {
  it('passes create_kwargs of the tool and records the reward', async () => {
    const out = await runToolCall(
      { ok: true, name: 'echo', arguments: { a: 1 } },
      ctxOf([tool(async (args, c) => ({ text: JSON.stringify([args, c.createKwargs]), reward: 0.5 }))]),
    );
    expect(out).toEqual({ text: '[{"a":1},{"ground_truth":"7"}]', record: { turn: 2, name: 'echo', arguments: { a: 1 }, reward: 0.5 } });
  });

  it('turns an AppError into an error message, and a bug into a generic one', async () => {
    const failing = await runToolCall(
      { ok: true, name: 'echo', arguments: {} },
      ctxOf([tool(async () => Promise.reject(new AppError(ErrorCode.NoResponders, 'no service')))]),
    );
    expect(failing).toEqual({ text: 'Error when executing tool: no service', record: { turn: 2, name: 'echo', arguments: {}, error: 'failed', reward: 0 } });
    const buggy = await runToolCall({ ok: true, name: 'echo', arguments: {} }, ctxOf([tool(async () => Promise.reject(new TypeError('x is undefined')))]));
    expect(buggy.text).toBe('Error when executing tool: internal error');
  });

  it('propagates the rollout’s own cancellation instead of answering', async () => {
    const rollout = new AbortController();
    const call = runToolCall({ ok: true, name: 'echo', arguments: {} }, ctxOf([tool(() => new Promise(() => {}))], undefined, rollout.signal));
    rollout.abort(new AppError(ErrorCode.Unavailable, 'stopping'));
    await expect(call).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('truncateToolText (verl tool_response_truncate_side)', () => {
  it('keeps the left, right or both ends, counting code points', () => {
    expect(truncateToolText('abcdef', 6, 'middle')).toBe('abcdef');
    expect(truncateToolText('abcdefgh', 4, 'left')).toBe('abcd...(truncated)');
    expect(truncateToolText('abcdefgh', 4, 'right')).toBe('(truncated)...efgh');
    expect(truncateToolText('abcdefgh', 4, 'middle')).toBe('ab...(truncated)...gh');
    expect(truncateToolText('😀😀😀😀', 2, 'left')).toBe('😀😀...(truncated)');
  });

  it('inherits Python’s text[-0:] (the whole text) when half the limit is 0', () => {
    expect(truncateToolText('abc', 1, 'middle')).toBe('...(truncated)...abc');
  });
});
