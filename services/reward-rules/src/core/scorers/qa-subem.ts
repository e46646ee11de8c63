import { createQaScorer } from './qa-answer.ts';

/** verl `search_r1_like_qa_em.compute_score_subem`: a normalised golden answer is a substring of the prediction. */
export const qaSubemScorer = createQaScorer({
  name: 'qa_subem',
  // An empty normalised gold always matches, as `"" in s` does in Python.
  matches: (gold, pred) => pred.includes(gold),
  tagFloodPenalty: false,
});
