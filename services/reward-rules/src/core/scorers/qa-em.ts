import type { Scorer } from '../scorer.ts';
import { QaParams, anyTargetMatches, extractQaAnswer, readTarget, tooManyAnswerTags } from './qa-answer.ts';
import { normalizeAnswer } from './qa-normalize.ts';

/** verl `search_r1_like_qa_em.compute_score`: exact match after SQuAD normalisation. */
export const qaEmScorer: Scorer<QaParams> = {
  name: 'qa_em',
  params: QaParams,
  score({ solution, groundTruth, params }) {
    // verl reads ground_truth['target'] in a random debug print even without an
    // answer; we check it on every call so a bad ground truth fails deterministically.
    const target = readTarget(groundTruth);
    const pred = extractQaAnswer(solution);
    // No <answer> scores 0, not format_score.
    if (pred === null) return { score: 0, extra: { acc: false, pred } };
    const normalizedPred = normalizeAnswer(pred);
    const acc = anyTargetMatches(target, (gold) => gold === normalizedPred);
    // More than 10 opening or closing tags quarters the reward (verl: score / 4).
    const score = acc ? (tooManyAnswerTags(solution) ? params.score / 4 : params.score) : params.format_score;
    return { score, extra: { acc, pred } };
  },
};
