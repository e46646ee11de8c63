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
  Conflict: 'conflict',
  UpstreamError: 'upstream_error',
  JudgeUnparseable: 'judge_unparseable',
  InvalidConfig: 'invalid_config',
  Internal: 'internal',
} as const;

/** Union of every stable error code. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * What each code means on the wire: the HTTP status every edge answers with (the
 * NATS services error header carries the same number) and whether the same
 * request may succeed later. The only place a status is chosen.
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, { status: number; retryable: boolean }>> = {
  bad_request: { status: 400, retryable: false },
  validation_failed: { status: 400, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unauthorized: { status: 401, retryable: false },
  not_found: { status: 404, retryable: false },
  unknown_data_source: { status: 400, retryable: false },
  invalid_params: { status: 400, retryable: false },
  invalid_ground_truth: { status: 400, retryable: false },
  scorer_failed: { status: 500, retryable: false },
  sandbox_unavailable: { status: 503, retryable: true },
  unsupported_language: { status: 400, retryable: false },
  no_responders: { status: 503, retryable: true },
  timeout: { status: 504, retryable: true },
  busy: { status: 503, retryable: true },
  unavailable: { status: 503, retryable: true },
  conflict: { status: 409, retryable: false },
  // Another server (an OpenAI-compatible backend, a peer service) answered something unusable.
  upstream_error: { status: 502, retryable: false },
  // An LLM judge answered, but no score could be read from its answer (the raw text goes in the item's `extra`).
  judge_unparseable: { status: 502, retryable: false },
  // A configuration file or environment value a service reads at start-up or per job is wrong.
  invalid_config: { status: 500, retryable: false },
  internal: { status: 500, retryable: false },
};

/** Options of an {@link AppError}. */
export interface AppErrorOptions {
  /** Whether the same request may succeed when retried. @default the code's entry in {@link ERROR_STATUS} */
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
    this.status = ERROR_STATUS[code].status;
    this.retryable = options.retryable ?? ERROR_STATUS[code].retryable;
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
    return err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details };
  }
  return { code: ErrorCode.Internal, message: 'internal error' };
}

/** Rebuilds an {@link AppError} from a wire body received from another service (its status follows from the code). */
export function fromErrorBody(body: ErrorBody): AppError {
  const code = isErrorCode(body.code) ? body.code : ErrorCode.Internal;
  return new AppError(code, body.message, { details: body.details });
}
