// Cost of the story signals' extra pass (each reply scored again after the
// prompt without the context r) against the old log-prob pass it rides with,
// per training step, on the story demo's data and model shape.
//   node test/bench/signals-bench.ts
// The step's batch is BENCH_PROMPTS prompts x BENCH_N replies of random
// lengths up to BENCH_RESPONSE tokens (seeded), the old pass padded to the
// fixed width the trainer pins (the longest prompt
// over the whole dataset, the pass without r padded per chunk of 16 similar
// lengths to quarter steps of the longest prompt without r, as the worker does). Both passes run in the policy worker's code path
// (PolicyWorkerCore.logprobs), which reports the extra pass's compute time.
// The data is converted as `make demo-story` does (no instruction or format
// text around the story setting) and tokenised by a BPE learned from it.
// Env: BENCH_LAYERS=2 BENCH_D_MODEL=96 BENCH_HEADS=4 BENCH_D_FF=384
// BENCH_VOCAB=4096 BENCH_PROMPTS=8 BENCH_N=4 BENCH_RESPONSE=64 BENCH_ROUNDS=10 (medians; a round that meets a width for the first time compiles it, so few rounds overstate the pass without r).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRng } from '@rl/service-kit';
import { parseStoryRecord, storySamples, StoryContextPart, DEFAULT_STORY_OPTIONS, type StorySample } from '@rl/datasets';
import { BYTE_SPECIALS, chatMlBpeTokenizer, trainBpe, widthBucket, type ChatMessage } from '@rl/policy';
import { PolicyWorkerCore } from '../../services/trainer/src/policy/worker-core.ts';
import { WorkerSpec } from '../../services/trainer/src/policy/worker-spec.ts';
import { percentile } from './timing.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PROMPTS = env('BENCH_PROMPTS', 8);
const N = env('BENCH_N', 4);
const RESPONSE = env('BENCH_RESPONSE', 64);
const ROUNDS = env('BENCH_ROUNDS', 10);
const DATA = join(import.meta.dirname, '../../infra/demo/story/conversations.jsonl');

const records = readFileSync(DATA, 'utf8')
  .trim()
  .split('\n')
  .map((line, i) => parseStoryRecord(JSON.parse(line), `line ${i + 1}`));
const samplesFor = (context: StoryContextPart): StorySample[] =>
  records.flatMap((r, i) => storySamples(r, r.id ?? String(i), 0, { ...DEFAULT_STORY_OPTIONS, instruction: '', outputFormat: '', context }));
const texts = samplesFor(StoryContextPart.Story).flatMap((s) => [...s.prompt.map((m) => m.content), s.target_response]);
const tokenizerJson = trainBpe(texts, { vocabSize: env('BENCH_VOCAB', 4096), specials: BYTE_SPECIALS, pretokenizer: 'qwen2' });
const tokenizer = chatMlBpeTokenizer(tokenizerJson);
const encode = (messages: ReadonlyArray<{ role: string; content: string }>) =>
  tokenizer.applyChatTemplate(messages as ChatMessage[], { addGenerationPrompt: true });

const longest = Math.max(...samplesFor(StoryContextPart.Story).map((s) => encode(s.prompt).length));
const core = await PolicyWorkerCore.create(
  WorkerSpec.parse({
    job: 'bench',
    model: {
      tokenizer: tokenizer.config,
      architecture: 'Qwen3ForCausalLM',
      d_model: env('BENCH_D_MODEL', 96),
      n_layers: env('BENCH_LAYERS', 2),
      n_heads: env('BENCH_HEADS', 4),
      n_kv_heads: null,
      head_dim: null,
      d_ff: env('BENCH_D_FF', 384),
      max_seq_len: longest + RESPONSE,
      seed: 1,
      path: null,
    },
    optim: { lr: 1e-3, weight_decay: 0, betas: [0.9, 0.999], grad_clip: 1 },
    loss: {
      clip_ratio_low: 0.2,
      clip_ratio_high: 0.28,
      clip_ratio_c: 3,
      loss_agg_mode: 'token-mean',
      entropy_coeff: 0,
      use_kl_loss: false,
      kl_loss_coef: 0.001,
      kl_loss_type: 'low_var_kl',
      loss_scale_factor: RESPONSE,
    },
    weights: { bucket: 'b', name: 'actor' },
  }),
);

process.stdout.write(
  `story signals: ${records.length} conversations, ${PROMPTS} prompts x n=${N} replies of 1-${RESPONSE} tokens per step, ${core.spec.model.n_layers} layers d${core.spec.model.d_model}\n`,
);
process.stdout.write('context r   longest prompt with / without r (tokens)   old log-prob pass (ms)   extra pass without r (ms)   extra / old\n');
for (const context of Object.values(StoryContextPart)) {
  const samples = samplesFor(context);
  const withIds = samples.map((s) => encode(s.prompt));
  const withoutIds = samples.map((s) => encode(s.prompt_without_context));
  const promptWidth = widthBucket(Math.max(...withIds.map((p) => p.length)));
  const longestWithout = Math.max(...withoutIds.map((p) => p.length));
  const rng = createRng(7);
  const olds: number[] = [];
  const extras: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const pairs: Array<{ prompt: number[]; response: number[] }> = [];
    const without: Array<{ index: number; prompt: number[] }> = [];
    for (let p = 0; p < PROMPTS; p++) {
      const k = Math.floor(rng.next() * samples.length);
      for (let j = 0; j < N; j++) {
        const length = 1 + Math.floor(rng.next() * RESPONSE);
        without.push({ index: pairs.length, prompt: withoutIds[k]! });
        pairs.push({ prompt: withIds[k]!, response: Array.from({ length }, () => 4 + Math.floor(rng.next() * (tokenizer.vocabSize - 4))) });
      }
    }
    const base = { model: 'actor' as const, pairs, prompt_width: promptWidth, response_width: widthBucket(RESPONSE) };
    // The trainer without signals: log-probs (the worker computes entropies in the same kernel either way).
    const t0 = performance.now();
    await core.logprobs({ ...base, entropy: false });
    const oldMs = performance.now() - t0;
    const reply = await core.logprobs({ ...base, entropy: true, without_context: without, without_context_prompt_width: longestWithout });
    // Round 0 compiles the shapes: left out (the chunked pass may meet a new shape later; that counts).
    if (round === 0) continue;
    olds.push(oldMs);
    extras.push(reply.without_context_compute_s! * 1000);
  }
  const old = percentile(olds, 50);
  const extra = percentile(extras, 50);
  process.stdout.write(
    `${context.padEnd(10)}  ${`${Math.max(...withIds.map((p) => p.length))} / ${longestWithout}`.padEnd(44)}  ${old.toFixed(0).padStart(22)}   ${extra.toFixed(0).padStart(25)}   ${(extra / old).toFixed(2).padStart(11)}\n`,
  );
}
core.dispose();
