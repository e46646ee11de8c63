import { describe, expect, it } from 'vitest';
import { parseHermesToolCalls } from './hermes-parser.ts';

describe('parseHermesToolCalls (verl HermesToolParser)', () => {
  it('finds every non-greedy block and removes them from the content', () => {
    const text = 'a<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>b<tool_call>{"name": "g", "arguments": {}}</tool_call>c';
    expect(parseHermesToolCalls(text)).toEqual({
      content: 'abc',
      calls: [
        { ok: true, name: 'f', arguments: { x: 1 } },
        { ok: true, name: 'g', arguments: {} },
      ],
    });
  });

  it('needs both tags: an unclosed block is no call at all', () => {
    expect(parseHermesToolCalls('<tool_call>{"name": "f", "arguments": {}}')).toEqual({ content: '<tool_call>{"name": "f", "arguments": {}}', calls: [] });
    expect(parseHermesToolCalls('just text').calls).toEqual([]);
  });

  it('reports each malformed block with a reason instead of dropping it', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"name": "f", "arguments": {"x": 1}', /not valid JSON/],
      ['[1, 2]', /must be a JSON object/],
      ['{"arguments": {}}', /string "name"/],
      ['{"name": 3, "arguments": {}}', /string "name"/],
      ['{"name": "f"}', /needs "arguments"/],
      ['{"name": "f", "arguments": "x=1"}', /arguments of f must be a JSON object/],
    ];
    for (const [body, reason] of cases) {
      const [call] = parseHermesToolCalls(`<tool_call>${body}</tool_call>`).calls;
      expect(call).toMatchObject({ ok: false, raw: body });
      expect(call?.ok === false ? call.reason : '').toMatch(reason);
    }
  });

  it('keeps good calls next to malformed ones, in order', () => {
    const { calls } = parseHermesToolCalls('<tool_call>oops</tool_call><tool_call>{"name": "f", "arguments": {"a": "b"}}</tool_call>');
    expect(calls.map((c) => c.ok)).toEqual([false, true]);
  });
});
