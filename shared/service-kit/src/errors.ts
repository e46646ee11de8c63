/**
 * Stable error codes shared by every service. HTTP problem bodies, NATS error
 * replies and per-item errors all carry one of these; callers branch on the code,
 * never on the message text.
 */
export const ErrorCode = {
  BadRequest: 'bad_request',
  ValidationFailed: 'validation_failed',
  PayloadTooLarge: 'payload_too_large',
  Unauthorized: 'unauthorized',
  NotFound: 'not_found',
  UnknownDataSource: 'unknown_data_source',
  InvalidParams: 'invalid_params',
  InvalidGroundTruth: 'invalid_ground_truth',
  ScorerFailed: 'scorer_failed',
  SandboxUnavailable: 'sandbox_unavailable',
  UnsupportedLanguage: 'unsupported_language',
  NoResponders: 'no_responders',
  Timeout: 'timeout',
  Busy: 'busy',
  Unavailable: 'unavailable',
  Internal: 'internal',
} as const;

/** Union of every stable error code. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Options of an {@link AppError}. */
export interface AppErrorOptions {
  /** HTTP status an edge replies with. @default 500 */
  status?: number;
  /** Whether the same request may succeed when retried. @default false */
  retryable?: boolean;
  /** Underlying error, kept for logs. */
  cause?: unknown;
  /** Machine-readable details (e.g. the failing field paths). */
  details?: Record<string, unknown>;
}

/** The one error type core code throws; edges map it to HTTP and NATS replies. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? 500;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

/**
 * An adapter's own failure with a stable code from its own small union (a
 * start-up problem, a worker-pool failure): callers branch on `code`, never on
 * the message. Not an {@link AppError}: no edge answers it as it is. Subclasses
 * only set `name`.
 */
export class CodedError<C extends string> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** Wire shape of an error, identical on HTTP, NATS and per-item slots. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

/** Narrows an arbitrary string to a known {@link ErrorCode}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && KNOWN_CODES.has(value);
}

/** Converts any thrown value into the wire body; unknown errors become `internal`. */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof AppError) {
    return err.details === undefined
      ? { code: err.code, message: err.message }
      : { code: err.code, message: err.message, details: err.details };
  }
  return { code: ErrorCode.Internal, message: 'internal error' };
}

/** Rebuilds an {@link AppError} from a wire body received from another service. */
export function fromErrorBody(body: ErrorBody, status = 500): AppError {
  const code = isErrorCode(body.code) ? body.code : ErrorCode.Internal;
  return new AppError(code, body.message, { status, details: body.details });
}
