// Deterministic, realistic batches for the rule-reward benchmark, shaped like a
// GRPO step: each prompt (one ground truth) has GROUP sampled responses, some
// right, most with their own wrong answers.
import { createRng, type Rng, type ScoreItem } from '@rl/service-kit';

/** A named benchmark workload and verl's in-process Python throughput on it (items/s, one core). */
export interface Workload {
  name: string;
  /** verl reference figure measured on this machine (see issue #2). */
  verlItemsPerSec: number;
  items: ScoreItem[];
}

/** Responses per prompt, as `actor_rollout_ref.rollout.n` in a GRPO job. */
export const GROUP = 8;

const WORDS = ['the', 'total', 'cost', 'is', 'so', 'we', 'add', 'then', 'each', 'apples', 'she', 'has', 'left', 'after', 'giving', 'away'];
const ENTITIES = ['Eiffel Tower', 'Paris', 'George Washington', 'the Pacific Ocean', 'Marie Curie', 'Mount Everest', 'Johann Sebastian Bach', 'the Nile'];

function prose(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.next() < 0.2 ? String(rng.int(1, 999)) : rng.pick(WORDS));
  return out.join(' ');
}

function latexAnswer(rng: Rng): string {
  switch (rng.int(0, 4)) {
    case 0:
      return `\\frac{${rng.int(1, 30)}}{${rng.int(2, 40)}}`;
    case 1:
      return `${rng.int(1, 9)}\\sqrt{${rng.int(2, 50)}}`;
    case 2:
      return String(rng.int(-500, 5000));
    case 3:
      return `${rng.int(1, 12)}\\pi`;
    default:
      return `(${rng.int(-9, 9)}, ${rng.int(-9, 9)})`;
  }
}

/** Builds `n` items per workload (n / GROUP prompts) from `seed`. */
export function workloads(n: number, seed = 20261122): Workload[] {
  const rng = createRng(seed);
  const gsm8k: ScoreItem[] = [];
  const math: ScoreItem[] = [];
  const qa: ScoreItem[] = [];
  for (let p = 0; p < n / GROUP; p++) {
    const num = rng.int(1, 5000);
    const tex = latexAnswer(rng);
    const entity = rng.pick(ENTITIES);
    for (let g = 0; g < GROUP; g++) {
      const right = rng.next() < 0.4;
      const said = right ? num : rng.int(1, 5000);
      gsm8k.push({
        data_source: 'openai/gsm8k',
        solution_str: `${prose(rng, 30)}. ${rng.int(1, 99)} + ${rng.int(1, 99)} = ${said}. #### ${said}`,
        ground_truth: String(num),
        params: { method: 'flexible' },
      });
      math.push({
        data_source: 'lighteval/MATH',
        solution_str: `${prose(rng, 25)} so the answer is $\\boxed{${right ? tex : latexAnswer(rng)}}$.`,
        ground_truth: tex,
      });
      qa.push({
        data_source: 'searchR1_nq',
        solution_str: `<think>${prose(rng, 20)}</think>\n<answer> ${right ? entity : rng.pick(ENTITIES)} </answer>`,
        ground_truth: { target: [entity, entity.toLowerCase()] },
      });
    }
  }
  return [
    { name: 'gsm8k (flexible)', verlItemsPerSec: 136_000, items: gsm8k },
    { name: 'MATH (math_reward)', verlItemsPerSec: 225_000, items: math },
    { name: 'QA EM (searchR1)', verlItemsPerSec: 116_000, items: qa },
  ];
}
