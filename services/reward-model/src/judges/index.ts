export { createJudgeBackends } from './create-judge-backends.ts';
