// Prepares the check that transformers (and vLLM, where installed) load a model
// directory this project wrote and compute what our engine computes. No model
// library runs here, so the numbers are made here and compared there:
//
//   node infra/scripts/device-hf-check.ts POLICY_DIR [--critic DIR] [--out .run/device-check]
//   (on the GPU machine) /usr/bin/python3 infra/device/hf_export_check.py .run/device-check
//
// The out dir gets copies of the directories and cases.json: seeded token pairs
// with our log-probs, entropies and (with a critic) values, and chats with the
// ids our chat-template path gives, which transformers' apply_chat_template must equal.
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type ChatMessage, loadModelDir, loadPolicy, policyFromWeights } from '@rl/policy';
import { createRng } from '@rl/service-kit/core';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { critic: { type: 'string' }, out: { type: 'string', default: '.run/device-check' } },
});
const policyDir = positionals[0];
if (policyDir === undefined) {
  process.stderr.write('usage: node infra/scripts/device-hf-check.ts POLICY_DIR [--critic DIR] [--out DIR]\n');
  process.exit(2);
}
const out = resolve(values.out);

const policy = await loadPolicy(resolve(policyDir));
const rng = createRng(7);
const ids = (n: number) => Array.from({ length: n }, () => rng.int(0, policy.tokenizer.vocabSize - 1));
const pairs = Array.from({ length: 6 }, (_, i) => ({ prompt: ids(4 + 3 * i), response: ids(3 + 2 * i) }));
const scores = await policy.score(pairs);

let values_: Float32Array[] | null = null;
if (values.critic !== undefined) {
  const critic = await policyFromWeights(await loadModelDir(resolve(values.critic)));
  values_ = await critic.values(pairs);
  critic.dispose();
}

const tools = [
  {
    type: 'function' as const,
    function: { name: 'add', description: 'Adds two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
  },
];
const chats: Array<{ messages: ChatMessage[]; tools?: typeof tools }> = [
  { messages: [{ role: 'user', content: 'What is 2 + 3?' }] },
  {
    messages: [
      { role: 'system', content: 'You are a careful calculator.' },
      { role: 'user', content: 'Add 2 and 3.' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'add', arguments: { a: 2, b: 3 } } }] },
      { role: 'tool', content: '5' },
      { role: 'user', content: 'Thanks. And 4 + 4?' },
    ],
    tools,
  },
];

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await cp(resolve(policyDir), join(out, 'policy'), { recursive: true });
if (values.critic !== undefined) await cp(resolve(values.critic), join(out, 'critic'), { recursive: true });
const cases = {
  pairs: pairs.map((p, i) => ({
    prompt_ids: p.prompt,
    response_ids: p.response,
    logprobs: [...(scores[i]?.logprobs ?? [])],
    entropies: [...(scores[i]?.entropy ?? [])],
    ...(values_ !== null && { values: [...(values_[i] ?? [])] }),
  })),
  chats: chats.map((c) => ({ ...c, ids: policy.tokenizer.applyChatTemplate(c.messages, { addGenerationPrompt: true, ...(c.tools && { tools: c.tools }) }) })),
};
await writeFile(join(out, 'cases.json'), `${JSON.stringify(cases)}\n`);
policy.dispose();
process.stdout.write(`wrote ${out} (${cases.pairs.length} pairs, ${cases.chats.length} chats${values_ !== null ? ', critic values' : ''})\n`);
