import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSchema } from '../types.ts';
import { ChatTemplate } from './chat-template.ts';
import { renderWithPython } from './reference/testing/render-with-python.ts';

// Whitespace control, loop controls, tojson options and the special-token variables, as a Llama 3 style template uses them.
const TEMPLATE = `{{- bos_token }}
{%- set ns = namespace(seen=0) %}
{%- if tools is not none %}
    {{- 'Tools:\\n' + tools | tojson(indent=2) + '\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'tool' %}{% continue %}{% endif %}
    {%- set ns.seen = ns.seen + 1 %}
    {%- if ns.seen > 3 %}{% break %}{% endif %}
    <|start_header_id|>{{ message.role }}<|end_header_id|>

    {{ message.content | trim }}{{ eos_token }}
{% endfor %}
{%- if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>{{ '\\n\\n' }}{% endif %}
{%- if custom_flag is defined %}[{{ custom_flag }}]{% endif %}`;

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: '  Sé breve.  ' },
  { role: 'tool', content: 'skipped' },
  { role: 'user', content: 'Hi 👋' },
  { role: 'assistant', content: 'Hello' },
  { role: 'user', content: 'never rendered (break)' },
];
const TOOLS: ToolSchema[] = [
  { type: 'function', function: { name: 'f', description: 'ünïcode', parameters: { type: 'object', properties: { x: { type: 'integer' } } } } },
];
const SPECIALS = { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' };

describe('ChatTemplate renders as transformers does', () => {
  const template = new ChatTemplate(TEMPLATE, SPECIALS, 'test');

  it('matches jinja2 with transformers settings, with and without tools, generation prompt and extra variables', () => {
    const cases = [
      { options: {}, request: { messages: MESSAGES } },
      { options: { tools: TOOLS, addGenerationPrompt: true }, request: { messages: MESSAGES, tools: TOOLS, add_generation_prompt: true } },
      { options: { templateArgs: { custom_flag: 'on' } }, request: { messages: MESSAGES, variables: { custom_flag: 'on' } } },
    ];
    for (const { options, request } of cases) {
      const ours = template.render(MESSAGES, options);
      expect(ours).toBe(renderWithPython(TEMPLATE, { ...request, variables: { ...SPECIALS, ...(request as { variables?: object }).variables } }));
    }
    expect(template.render(MESSAGES)).not.toContain('never rendered');
  });

  it('names where a template with a syntax error came from, and turns raise_exception into a 400', () => {
    expect(() => new ChatTemplate('{% for %}', {}, 'config.json: chat_template')).toThrow(/^config\.json: chat_template: not a valid jinja template/);
    const raising = new ChatTemplate("{{ raise_exception('only user turns') }}", {}, 't');
    try {
      raising.render([{ role: 'user', content: 'x' }]);
      expect.unreachable();
    } catch (err) {
      expect((err as { code: string }).code).toBe('bad_request');
      expect((err as Error).message).toContain('only user turns');
    }
  });
});
