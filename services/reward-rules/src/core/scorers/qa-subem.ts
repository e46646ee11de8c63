import type { Scorer } from '../scorer.ts';
import { QaParams, anyTargetMatches, extractQaAnswer, readTarget } from './qa-answer.ts';
import { normalizeAnswer } from './qa-normalize.ts';

/** verl `search_r1_like_qa_em.compute_score_subem`: a normalised golden answer is a substring of the prediction. */
export const qaSubemScorer: Scorer<QaParams> = {
  name: 'qa_subem',
  params: QaParams,
  score({ solution, groundTruth, params }) {
    // Checked on every call, as in the EM scorer.
    const target = readTarget(groundTruth);
    const pred = extractQaAnswer(solution);
    if (pred === null) return { score: 0, extra: { acc: false, pred } };
    const normalizedPred = normalizeAnswer(pred);
    // No tag-count penalty in verl's SubEM. An empty normalised gold always matches.
    const acc = anyTargetMatches(target, (gold) => normalizedPred.includes(gold));
    return { score: acc ? params.score : params.format_score, extra: { acc, pred } };
  },
};
