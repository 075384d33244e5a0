/** An error answer of the API: its stable upper-case `code` is what the console shows and tests on. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Builds an ApiError from a failed response's body (the error envelope), whatever it holds. */
export function apiErrorOf(status: number, body: unknown): ApiError {
  const b = (body ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
  const code = typeof b.code === 'string' ? b.code : `HTTP_${status}`;
  const message = typeof b.message === 'string' ? b.message : `The server answered ${status}.`;
  return new ApiError(status, code, message, b.details);
}
