/** Key of the route used when no other entry matches a data_source. */
export const DEFAULT_ROUTE_KEY = 'default';

/** Rule rewards (gsm8k, MATH, DAPO, QA, geometry3k, the digit task). */
export const RULES_SUBJECT = 'reward.rules.score';
/** Code execution rewards. */
export const SANDBOX_SUBJECT = 'reward.sandbox.score';
/** Trained reward models and LLM judges (`params.model` / `params.judge` name one). */
export const MODEL_SUBJECT = 'reward.model.score';
/** Embedding rewards for multi-turn stories. */
export const STORY_SUBJECT = 'reward.story.score';

/**
 * data_source → NATS subject. Keys ending in `*` match by prefix (longest wins);
 * `default` catches the rest. Mirrors verl `default_compute_score`'s names, so
 * the rules service sees exactly the sources it implements.
 */
export const DEFAULT_REWARD_ROUTES: Readonly<Record<string, string>> = Object.freeze({
  'openai/gsm8k': RULES_SUBJECT,
  'lighteval/MATH': RULES_SUBJECT,
  'DigitalLearningGmbH/MATH-lighteval': RULES_SUBJECT,
  'HuggingFaceH4/MATH-500': RULES_SUBJECT,
  math_dapo: RULES_SUBJECT,
  math: RULES_SUBJECT,
  math_dapo_reasoning: RULES_SUBJECT,
  'aime*': RULES_SUBJECT,
  'hiyouga/geometry3k': RULES_SUBJECT,
  arithmetic_sequence: RULES_SUBJECT,
  'searchR1_*': RULES_SUBJECT,
  codecontests: SANDBOX_SUBJECT,
  apps: SANDBOX_SUBJECT,
  codeforces: SANDBOX_SUBJECT,
  taco: SANDBOX_SUBJECT,
  story: STORY_SUBJECT,
  [DEFAULT_ROUTE_KEY]: RULES_SUBJECT,
});
