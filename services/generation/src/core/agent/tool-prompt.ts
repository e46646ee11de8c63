import type { ChatMessage } from '../policy-types.ts';
import type { ToolSchema } from '../tools/tool.ts';

/**
 * The tools block Hermes-style chat templates (Qwen2.5's among them) render into
 * the system turn: one JSON schema per line inside `<tools>`, then how to call.
 */
export function renderToolsBlock(tools: readonly ToolSchema[]): string {
  return [
    '# Tools',
    '',
    'You can call functions to help with the request. Their signatures are inside <tools></tools>:',
    '<tools>',
    ...tools.map((t) => JSON.stringify(t)),
    '</tools>',
    '',
    'To call a function, write a JSON object with its name and arguments inside <tool_call></tool_call> tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
  ].join('\n');
}

/**
 * Messages with the tools block appended to the system message, or in a new
 * system message first when there is none, the way such templates place it.
 * Returns `messages` unchanged when there are no tools.
 */
export function withToolsPrompt(messages: readonly ChatMessage[], tools: readonly ToolSchema[] | undefined): readonly ChatMessage[] {
  if (tools === undefined || tools.length === 0) return messages;
  const block = renderToolsBlock(tools);
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${block}` }, ...rest];
  return [{ role: 'system', content: block }, ...messages];
}
