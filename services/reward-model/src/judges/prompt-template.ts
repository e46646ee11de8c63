// A judge's prompt: jinja (the dialect of Hugging Face chat templates) over the
// item's question, response, reference, conversation and extra_info.
import { Template } from '@huggingface/jinja';
import type { ChatMessage, ModelItem } from '../core/backend.ts';

/** The messages a judge is sent for one item. */
export type JudgeMessages = Array<{ role: 'system' | 'user'; content: string }>;

/** The variables a judge template sees. */
function variables(item: ModelItem): Record<string, unknown> {
  const lastUser = item.messages.findLast((m: ChatMessage) => m.role === 'user');
  return {
    // A JSON copy: jinja would see keys set to undefined as defined.
    ...(JSON.parse(JSON.stringify({ extra_info: item.extraInfo, messages: item.messages })) as Record<string, unknown>),
    question: lastUser?.content ?? '',
    response: item.response,
    reference: item.groundTruth ?? '',
    data_source: item.dataSource,
  };
}

/** A judge's compiled system and user templates. */
export class JudgePrompt {
  readonly #system: Template | undefined;
  readonly #user: Template;

  /** Compiles both; a syntax error throws naming the template (`system` or `prompt`). */
  constructor(user: string, system: string | undefined) {
    this.#user = compile(user, 'prompt');
    this.#system = system === undefined ? undefined : compile(system, 'system');
  }

  /** The messages for `item`; a template's own failure (raise_exception, a bad filter) throws. */
  render(item: ModelItem): JudgeMessages {
    const vars = variables(item);
    const out: JudgeMessages = [];
    if (this.#system !== undefined) out.push({ role: 'system', content: this.#system.render(vars) });
    out.push({ role: 'user', content: this.#user.render(vars) });
    return out;
  }
}

function compile(source: string, key: string): Template {
  try {
    return new Template(source);
  } catch (err) {
    throw new Error(`${key}: not a valid jinja template (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
}
