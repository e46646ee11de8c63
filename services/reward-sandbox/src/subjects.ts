/** Service name: also the NATS queue group and the micro-service name. */
export const SERVICE_NAME = 'reward-sandbox';
/** Batch scoring of code items (same body as `POST /v1/score`). */
export const SCORE_SUBJECT = 'reward.sandbox.score';
/** SandboxFusion-compatible single run (same body as `POST /run_code`). */
export const RUN_CODE_SUBJECT = 'sandbox.run_code';
