import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { SANDBOX_SCORE_SUBJECT } from '../subjects.ts';
import { SCORERS, listDataSources, resolveDataSource } from './registry.ts';

// Every branch of verl's default_compute_score (verl b178a3c) and where it lands here.
const LOCAL: Array<[string, string]> = [
  ['openai/gsm8k', 'gsm8k'],
  ['lighteval/MATH', 'math_reward'],
  ['DigitalLearningGmbH/MATH-lighteval', 'math_reward'],
  ['HuggingFaceH4/MATH-500', 'math_reward'],
  ['math_dapo', 'math_dapo'],
  ['math', 'math_dapo'],
  ['math_dapo_reasoning', 'math_dapo'],
  ['aime2024', 'math_dapo'],
  ['aime', 'math_dapo'],
  ['aime_2025_anything', 'math_dapo'],
  ['hiyouga/geometry3k', 'geo3k'],
  ['arithmetic_sequence', 'arithmetic_sequence'],
  ['searchR1_nq', 'qa_em'],
  ['searchR1_triviaqa', 'qa_em'],
  ['searchR1_popqa', 'qa_em'],
  ['searchR1_hotpotqa', 'qa_em'],
  ['searchR1_2wikimultihopqa', 'qa_em'],
  ['searchR1_musique', 'qa_em'],
  ['searchR1_bamboogle', 'qa_em'],
];

describe('resolveDataSource (verl default_compute_score dispatch)', () => {
  it.each(LOCAL)('%s -> %s', (dataSource, scorer) => {
    const route = resolveDataSource(dataSource);
    expect(route.kind === 'local' ? route.scorer.name : route.subject).toBe(scorer);
  });

  it.each(['codecontests', 'apps', 'codeforces', 'taco'])('%s goes to the sandbox service', (dataSource) => {
    expect(resolveDataSource(dataSource)).toEqual({ kind: 'remote', subject: SANDBOX_SCORE_SUBJECT });
  });

  // numina_* (verl prime_math) is not ported; the rest are not verl names (matching is case-sensitive).
  it.each([
    'numina_aops_forum',
    'numina_synthetic_math',
    'numina_amc_aime',
    'numina_synthetic_amc',
    'numina_cn_k12',
    'numina_olympiads',
    'AIME2024',
    'openai/gsm8k ',
    'gsm8k',
    'searchR1_other',
    '',
  ])('%j is an unknown data source', (dataSource) => {
    const run = () => resolveDataSource(dataSource);
    expect(run).toThrow(AppError);
    expect(run).toThrow(expect.objectContaining({ code: ErrorCode.UnknownDataSource, status: 400 }));
  });
});

describe('SCORERS / listDataSources', () => {
  it('names every local scorer by its own name', () => {
    expect(Object.keys(SCORERS).sort()).toEqual(['arithmetic_sequence', 'geo3k', 'gsm8k', 'math_dapo', 'math_reward', 'qa_em', 'qa_subem']);
    for (const [name, scorer] of Object.entries(SCORERS)) expect(scorer.name).toBe(name);
  });

  it('lists every exact name and the aime prefix', () => {
    const table = listDataSources();
    expect(table.data_sources).toHaveLength(LOCAL.length - 3 + 4);
    expect(table.data_sources).toContainEqual({ data_source: 'taco', scorer: SANDBOX_SCORE_SUBJECT });
    expect(table.prefixes).toEqual([{ prefix: 'aime', scorer: 'math_dapo' }]);
  });
});
