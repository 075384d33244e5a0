/**
 * Every application error code, its HTTP status and its English message, in one place.
 * `docs/error-codes.md` lists the same table; a test keeps the two in step.
 * Plugins and later features add their codes here too: clients branch on these names.
 */
export const ERROR_CATALOGUE = {
  // generic
  INVALID_INPUT: [400, 'The request is invalid.'],
  INVALID_JSON: [400, 'The request body is not valid JSON.'],
  INVALID_ID: [400, 'The identifier must be a positive integer.'],
  PAYLOAD_TOO_LARGE: [413, 'The request body is too large.'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'The request content type is not supported.'],
  ROUTE_NOT_FOUND: [404, 'No such route.'],
  INTERNAL_ERROR: [500, 'Internal server error.'],
  NOT_READY: [503, 'The service is not ready.'],
  // authentication
  AUTH_UNAUTHORIZED: [401, 'Authentication is required.'],
  AUTH_FORBIDDEN: [403, 'Your role does not allow this operation.'],
  AUTH_INTERACTIVE_ONLY: [403, 'This operation needs an interactive login; API keys are not accepted.'],
  AUTH_INVALID_CREDENTIALS: [401, 'Invalid username or password.'],
  AUTH_USER_DISABLED: [401, 'This account is disabled.'],
  AUTH_RATE_LIMITED: [429, 'Too many attempts; try again later.'],
  AUTH_KEY_DISABLED: [401, 'This API key is disabled.'],
  AUTH_KEY_EXPIRED: [401, 'This API key has expired.'],
  AUTH_SETUP_DISABLED: [409, 'Setup is already complete.'],
  AUTH_WRONG_PASSWORD: [400, 'The current password is wrong.'],
  // users
  USER_NOT_FOUND: [404, 'User not found.'],
  USER_USERNAME_EXISTS: [409, 'A user with this username already exists.'],
  USER_LAST_ADMIN: [400, 'The last enabled administrator cannot be deleted, demoted or disabled.'],
  USER_SELF_DELETE: [400, 'You cannot delete your own account.'],
  // api keys
  API_KEY_NOT_FOUND: [404, 'API key not found.'],
  // settings, audit, system
  SETTINGS_INVALID: [400, 'Invalid settings.'],
  AUDIT_FILTER_INVALID: [400, 'Invalid audit log filter.'],
  UPDATE_CHECK_FAILED: [502, 'The release feed could not be reached.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
