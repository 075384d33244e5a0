import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';

/** The one error type handlers throw; the root error handler turns it into the envelope. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { message?: string; details?: unknown; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    const [status, message] = ERROR_CATALOGUE[code];
    super(options.message ?? message, { cause: options.cause });
    this.code = code;
    this.statusCode = status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export function appError(code: ErrorCode, message?: string, details?: unknown): AppError {
  return new AppError(code, { message, details });
}
