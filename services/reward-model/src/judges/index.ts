export { type CreateJudgesOptions, createJudgeBackends } from './create-judge-backends.ts';
