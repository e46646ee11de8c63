import { createQaScorer } from './qa-answer.ts';

/** verl `search_r1_like_qa_em.compute_score`: exact match after SQuAD normalisation. */
export const qaEmScorer = createQaScorer({
  name: 'qa_em',
  matches: (gold, pred) => gold === pred,
  // More than 10 opening or closing tags quarters the reward (verl: score / 4).
  tagFloodPenalty: true,
});
