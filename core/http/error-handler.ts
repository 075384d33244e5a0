import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error.ts';
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';

/** Fastify's own 4xx errors, renamed to stable application codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_CONTENT_LENGTH',
  FST_ERR_BAD_URL: 'INVALID_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

/**
 * May answer a request no route matched instead of the 404 envelope: returns true when it took
 * the reply (and sends it itself), false to leave the request to the envelope. The web console's
 * pages live at addresses no route knows (its client-side routes).
 */
export type NotFoundFallback = (request: FastifyRequest, reply: FastifyReply) => boolean;

declare module 'fastify' {
  interface FastifyInstance {
    /** Asked in order before the 404 envelope is sent; see NotFoundFallback. */
    notFoundFallbacks: NotFoundFallback[];
  }
}

interface ValidationIssue {
  path: string;
  message: string;
}

function validationDetails(error: FastifyError): ValidationIssue[] {
  const where = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const missing =
      v.keyword === 'required' ? `/${String((v.params as { missingProperty?: string }).missingProperty)}` : '';
    return { path: `${where}${v.instancePath}${missing}`, message: v.message ?? 'invalid' };
  });
}

function toAppError(error: FastifyError | AppError): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    if (error.validationContext === 'params') return new AppError('INVALID_ID', { details: validationDetails(error) });
    return new AppError('INVALID_INPUT', { details: validationDetails(error) });
  }
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped) return new AppError(mapped);
  // Any other client error Fastify raises keeps its status with a generic code, never a 500.
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('INVALID_INPUT', { message: error.message });
  }
  return new AppError('INTERNAL_ERROR', { cause: error });
}

/** The single root error handler: writes the error envelope and hides 5xx detail. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(function rootErrorHandler(
    error: FastifyError | AppError,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const appErr = toAppError(error);
    if (appErr.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appErr.code, status: appErr.statusCode }, 'request refused');
    if (reply.sent || reply.raw.headersSent) return;
    const body: Record<string, unknown> = { code: appErr.code, message: appErr.message };
    if (appErr.details !== undefined) body.details = appErr.details;
    void reply.code(appErr.statusCode).headers(appErr.headers).type('application/json; charset=utf-8').send(body);
  });

  const fallbacks: NotFoundFallback[] = [];
  app.decorate('notFoundFallbacks', fallbacks);
  app.setNotFoundHandler(function routeNotFound(request, reply) {
    if (fallbacks.some((fallback) => fallback(request, reply))) return;
    const [status, message] = ERROR_CATALOGUE.ROUTE_NOT_FOUND;
    void reply
      .code(status)
      .send({ code: 'ROUTE_NOT_FOUND', message: `${message} ${request.method} ${request.url.split('?')[0]}` });
  });
}
