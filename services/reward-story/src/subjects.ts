/** Service name: also the NATS queue group and the micro-service name. */
export const SERVICE_NAME = 'reward-story';
/** Batch scoring on NATS (same body as `POST /v1/score`). */
export const SCORE_SUBJECT = 'reward.story.score';
