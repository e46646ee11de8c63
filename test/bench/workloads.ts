// Deterministic, realistic batches for the rule-reward benchmark.
import { createRng, type ScoreItem } from '@rl/shared';

/** A named benchmark workload and verl's in-process Python throughput on it (items/s, one core). */
export interface Workload {
  name: string;
  /** verl reference figure measured on this machine (see issue #2). */
  verlItemsPerSec: number;
  items: ScoreItem[];
}

const WORDS = ['the', 'total', 'cost', 'is', 'so', 'we', 'add', 'then', 'each', 'apples', 'she', 'has', 'left', 'after', 'giving', 'away'];

function prose(rng: ReturnType<typeof createRng>, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.next() < 0.2 ? String(rng.int(1, 999)) : rng.pick(WORDS));
  return out.join(' ');
}

/** Builds `n` items per workload from `seed`. */
export function workloads(n: number, seed = 20261122): Workload[] {
  const rng = createRng(seed);
  const gsm8k: ScoreItem[] = [];
  const math: ScoreItem[] = [];
  const qa: ScoreItem[] = [];
  const FRACS = ['\\frac{1}{2}', '\\frac{3}{4}', '\\sqrt{2}', '10', '0.5', '\\dfrac{2}{3}', '3\\pi', '\\text{(A)}'];
  const ANSWERS = ['Eiffel Tower', 'Paris', 'George Washington', 'the Pacific Ocean', '1969', 'Marie Curie'];
  for (let i = 0; i < n; i++) {
    const ans = rng.int(1, 5000);
    gsm8k.push({
      data_source: 'openai/gsm8k',
      solution_str: `${prose(rng, 30)}. ${rng.int(1, 99)} + ${rng.int(1, 99)} = ${ans}. #### ${rng.next() < 0.8 ? ans : ans + 1}`,
      ground_truth: String(ans),
      params: { method: 'flexible' },
    });
    const frac = rng.pick(FRACS);
    math.push({
      data_source: 'lighteval/MATH',
      solution_str: `${prose(rng, 25)} so the answer is $\\boxed{${rng.next() < 0.7 ? frac : rng.pick(FRACS)}}$.`,
      ground_truth: frac,
    });
    const target = rng.pick(ANSWERS);
    qa.push({
      data_source: 'searchR1_nq',
      solution_str: `<think>${prose(rng, 20)}</think>\n<answer> ${rng.next() < 0.6 ? target : rng.pick(ANSWERS)} </answer>`,
      ground_truth: { target: [target, target.toLowerCase()] },
    });
  }
  return [
    { name: 'gsm8k (flexible)', verlItemsPerSec: 136_000, items: gsm8k },
    { name: 'MATH (math_reward)', verlItemsPerSec: 225_000, items: math },
    { name: 'QA EM (searchR1)', verlItemsPerSec: 116_000, items: qa },
  ];
}
