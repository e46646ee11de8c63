export { DEFAULT_PROBLEM_OPTIONS, generateProblem, type ProblemOptions, type WordProblem } from './problem.ts';
export { AnswerStyle, formatSolution } from './solution.ts';
export { synthGsm8kRows, type SynthOptions } from './synth-rows.ts';
