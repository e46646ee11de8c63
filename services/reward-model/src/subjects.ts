/** Name of this service (NATS micro-service name and queue group, OpenAPI title, log field). */
export const SERVICE_NAME = 'reward-model';
/** NATS subject of the batch scoring endpoint. */
export const SCORE_SUBJECT = 'reward.model.score';
