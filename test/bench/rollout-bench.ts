// `make bench` (generation): rollouts/second of the tool agent with the scripted
// backend (the loop's own overhead: templating, batching, Hermes parsing, tool
// calls, masks), then the embedded policy's tokens/second through
// /v1/completions (a real service process) at batch 1 and 64, and in-process
// with and without the KV cache.
import { createRandomPolicy } from '@rl/policy';
import { BoundedQueue } from '@rl/service-kit';
import { fakePort, manualDeadlines, scriptedBackend } from '../../services/generation/src/core/agent/testing/agent.ts';
import type { Script } from '../../services/generation/src/core/backends/scripted-policy.ts';
import { runRollouts, type RolloutDeps } from '../../services/generation/src/core/rollout/run-rollouts.ts';
import { CALCULATOR_SCHEMA, createCalculatorTool } from '../../services/generation/src/core/tools/calculator.ts';
import { createGsm8kRewardTool, GSM8K_REWARD_SCHEMA } from '../../services/generation/src/core/tools/gsm8k-reward.ts';
import { RolloutRequest } from '../../services/generation/src/schemas/rollout.ts';
import { startNatsServer, startService } from '../support/processes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const BATCH = 256;
const fmt = (x: number, unit: string) => `${x.toFixed(x < 100 ? 1 : 0).padStart(9)} ${unit}`;

// Three assistant turns: a calculator call, a gsm8k-reward call, the answer.
const script: Script = ({ turn }) =>
  [
    'First the arithmetic. <tool_call>{"name": "calculator", "arguments": {"expression": "(16 - 3 - 4) * 2"}}</tool_call>',
    'Checking. <tool_call>{"name": "calc_gsm8k_reward", "arguments": {"answer": "18"}}</tool_call>',
    'She makes 18 dollars a day. #### 18',
  ][turn] ?? '';

async function toolAgentRate(): Promise<number> {
  const port = fakePort();
  const deps: RolloutDeps = {
    backend: scriptedBackend(script),
    env: {
      tools: new Map([
        ['calculator', createCalculatorTool({ schema: CALCULATOR_SCHEMA, timeoutMs: 1000 })],
        ['calc_gsm8k_reward', createGsm8kRewardTool({ schema: GSM8K_REWARD_SCHEMA, timeoutMs: 1000, port })],
      ]),
      deadline: manualDeadlines().deadline,
    },
    interactions: new Map(),
    defaults: { maxPromptTokens: 8192, maxResponseTokens: 2048 },
    slots: new BoundedQueue({ concurrency: BATCH }),
    newId: () => 'bench',
  };
  const sample = {
    agent_name: 'tool_agent',
    prompt: [
      { role: 'system', content: 'You are a math expert. Use the tools, then answer after ####.' },
      { role: 'user', content: 'Janet’s ducks lay 16 eggs per day. She eats three and bakes with four. She sells the rest at $2. How much does she make?' },
    ],
    extra_info: { tools_kwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '18' } } } },
  };
  const req = RolloutRequest.parse({ samples: Array.from({ length: BATCH }, () => sample) });
  const signal = new AbortController().signal;
  const check = (await runRollouts(req, deps, signal)).results[0];
  if (check === undefined || 'error' in check || check.num_tool_calls !== 2)
    throw new Error(`bench rollout is not what it should be: ${JSON.stringify(check)}`);
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) n += (await runRollouts(req, deps, signal)).results.length;
  return n / ((performance.now() - started) / 1000);
}

async function completionsRate(base: string, batch: number, maxTokens: number): Promise<number> {
  const prompt = Array.from({ length: batch }, (_, i) => Array.from({ length: 16 }, (_, k) => 65 + ((i + k) % 26)));
  const once = async () => {
    const res = await fetch(`${base}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, max_tokens: maxTokens, temperature: 1, stop_token_ids: [] }),
    });
    return ((await res.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens;
  };
  await once(); // warm-up: kernel compilation for this shape
  let tokens = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) tokens += await once();
  return tokens / ((performance.now() - started) / 1000);
}

async function kvRate(batch: number, kvCache: boolean, maxTokens: number): Promise<number> {
  const policy = await createRandomPolicy({ config: { dModel: 64, nLayers: 2, nHeads: 4, dFF: 128, maxSeqLen: 4096 }, tokenizer: { kind: 'byte' }, seed: 0 });
  try {
    const prompts = Array.from({ length: batch }, (_, i) => Array.from({ length: 16 }, (_, k) => 65 + ((i + k) % 26)));
    const params = { maxTokens, temperature: 1, stopTokenIds: [] };
    await policy.generateWith(prompts, params, { kvCache });
    let tokens = 0;
    const started = performance.now();
    while (performance.now() - started < SECONDS * 1000)
      tokens += (await policy.generateWith(prompts, params, { kvCache })).reduce((s, g) => s + g.tokenIds.length, 0);
    return tokens / ((performance.now() - started) / 1000);
  } finally {
    policy.dispose();
  }
}

console.log(`tool agent, scripted backend (3 turns, 2 tool calls, batches of ${BATCH}): ${fmt(await toolAgentRate(), 'rollouts/s')}`);

const nats = await startNatsServer();
const svc = await startService('generation', { NATS_URL: nats.url });
try {
  for (const batch of [1, 64])
    console.log(
      `embedded /v1/completions, batch ${String(batch).padStart(2)}, 64 new tokens: ${fmt(await completionsRate(svc.baseUrl, batch, 64), 'tokens/s')}`,
    );
} finally {
  await svc.stop();
  await nats.stop();
}
for (const batch of [1, 64]) {
  for (const kv of [true, false])
    console.log(
      `embedded in-process, batch ${String(batch).padStart(2)}, KV cache ${kv ? 'on ' : 'off'}, 64 new tokens: ${fmt(await kvRate(batch, kv, 64), 'tokens/s')}`,
    );
}
