import { describe, expect, it } from 'vitest';
import { allParsed, parseHermesToolCalls } from './hermes-parser.ts';

describe('parseHermesToolCalls (vLLM hermes parser)', () => {
  it('finds every non-greedy block; the content is the text before the first', () => {
    const text = 'a<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>b<tool_call>{"name": "g", "arguments": {}}</tool_call>c';
    expect(parseHermesToolCalls(text)).toEqual({
      content: 'a',
      calls: [
        { ok: true, name: 'f', arguments: { x: 1 } },
        { ok: true, name: 'g', arguments: {} },
      ],
    });
  });

  it('reads Qwen output as its chat template asks for it: blocks on their own lines after the text', () => {
    const text =
      'I will compute both.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "3*3"}}\n</tool_call>';
    const { content, calls } = parseHermesToolCalls(text);
    expect(content).toBe('I will compute both.\n');
    expect(calls).toEqual([
      { ok: true, name: 'calculator', arguments: { expression: '2+2' } },
      { ok: true, name: 'calculator', arguments: { expression: '3*3' } },
    ]);
    expect(parseHermesToolCalls('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>').content).toBe('');
  });

  it('parses an unclosed last block up to the end of the text, as vLLM does', () => {
    expect(parseHermesToolCalls('x<tool_call>{"name": "f", "arguments": {"a": [1]}}\n')).toEqual({
      content: 'x',
      calls: [{ ok: true, name: 'f', arguments: { a: [1] } }],
    });
    const cut = parseHermesToolCalls('<tool_call>{"name": "f", "argu');
    expect(cut.calls).toMatchObject([{ ok: false, raw: '{"name": "f", "argu' }]);
  });

  it('without <tool_call> there are no calls and the text is the content (a stray closing tag included)', () => {
    expect(parseHermesToolCalls('just text')).toEqual({ content: 'just text', calls: [] });
    expect(parseHermesToolCalls('done</tool_call>')).toEqual({ content: 'done</tool_call>', calls: [] });
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

  it('keeps good calls next to malformed ones, in order; allParsed is vLLM’s all-or-nothing', () => {
    const { calls } = parseHermesToolCalls('<tool_call>oops</tool_call><tool_call>{"name": "f", "arguments": {"a": "b"}}</tool_call>');
    expect(calls.map((c) => c.ok)).toEqual([false, true]);
    expect(allParsed(calls)).toBe(false);
    expect(allParsed(calls.slice(1))).toBe(true);
    expect(allParsed([])).toBe(false);
  });
});
