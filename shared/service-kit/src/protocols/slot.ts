import { AppError, ErrorCode } from '../errors.ts';
import { MAX_SOLUTION_CHARS } from '../schemas/score.ts';

/** One result of a service's batch scorer, in our contract: a score, or the item's error. */
export type ProtocolSlot = { score: number; extra?: Record<string, unknown> } | { error: { code: string; message: string } };

/** 400: a sample whose scorer neither the URL nor its label names. */
export function missingDataSource(field: string): AppError {
  const message = `${field}: no data_source; post to /<protocol>/<data_source> or give the label a "data_source"`;
  return new AppError(ErrorCode.ValidationFailed, message, { details: { issues: [{ path: field, message: 'no data_source' }] } });
}

/** 400: a response longer than any scorer accepts. */
export function responseTooLong(field: string, length: number): AppError {
  const message = `${field}: the response is ${length} characters; at most ${MAX_SOLUTION_CHARS} are scored`;
  return new AppError(ErrorCode.ValidationFailed, message, { details: { issues: [{ path: field, message: 'response too long' }] } });
}
