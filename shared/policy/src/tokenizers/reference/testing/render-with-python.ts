// Renders a chat template with jinja2 in /usr/bin/python3 as transformers does
// (render_chat_template.py beside this file): the reference the tests compare to.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The text transformers' apply_chat_template(tokenize=False) renders; `variables` are the special tokens and extra kwargs. */
export function renderWithPython(
  template: string,
  request: { messages: unknown; tools?: unknown; add_generation_prompt?: boolean; variables?: Record<string, unknown> },
): string {
  const script = join(import.meta.dirname, '..', 'render_chat_template.py');
  return execFileSync('/usr/bin/python3', [script], { input: JSON.stringify({ template, ...request }), encoding: 'utf8', timeout: 30_000 });
}
