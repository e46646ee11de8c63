/** Service name: also the NATS queue group and the micro-service name. */
export const SERVICE_NAME = 'generation';
/** Rollouts on NATS (same body as `POST /v1/rollouts`). */
export const ROLLOUT_SUBJECT = 'rollout.generate';
/** Rule rewards (the gsm8k tool and interaction score through it). */
export const RULES_SCORE_SUBJECT = 'reward.rules.score';
/** SandboxFusion-compatible code execution (the code_interpreter tool). */
export const SANDBOX_RUN_CODE_SUBJECT = 'sandbox.run_code';
