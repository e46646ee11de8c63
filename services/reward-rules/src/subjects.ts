/** Service name: also the NATS queue group and the micro-service name. */
export const SERVICE_NAME = 'reward-rules';
/** Batch scoring on NATS (same body as `POST /v1/score`). */
export const SCORE_SUBJECT = 'reward.rules.score';
/** Where code data sources are forwarded (the sandbox service). */
export const SANDBOX_SCORE_SUBJECT = 'reward.sandbox.score';
