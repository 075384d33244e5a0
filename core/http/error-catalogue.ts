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
  NOT_ACCEPTABLE: [406, 'This endpoint only produces text/event-stream.'],
  INTERNAL_ERROR: [500, 'Internal server error.'],
  SERVICE_UNAVAILABLE: [503, 'The server is shutting down.'],
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
  // storage targets
  STORAGE_TARGET_NOT_FOUND: [404, 'Storage target not found.'],
  STORAGE_TARGET_NAME_EXISTS: [409, 'A storage target with this name already exists.'],
  STORAGE_TARGET_IN_USE: [409, 'The storage target is used by a backup task or holds backup artifacts.'],
  STORAGE_TARGET_TYPE_IMMUTABLE: [400, 'The type of a storage target cannot be changed.'],
  STORAGE_TARGET_INVALID_CONFIG: [400, 'The storage target configuration is invalid.'],
  STORAGE_TARGET_TEST_FAILED: [400, 'The storage target could not be reached or written.'],
  STORAGE_PROVIDER_UNSUPPORTED: [400, 'Unknown storage target type.'],
  STORAGE_PROVIDER_UNAVAILABLE: [503, 'The storage type is not available on this server.'],
  STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH: [400, 'The storage target is not a Google Drive target.'],
  STORAGE_GOOGLE_OAUTH_STATE_INVALID: [400, 'The authorisation state is unknown, expired or already used.'],
  STORAGE_GOOGLE_OAUTH_EXCHANGE_FAILED: [400, 'Google refused the authorisation code.'],
  STORAGE_GOOGLE_PROFILE_FAILED: [400, 'The Google account profile could not be read.'],
  // backup tasks
  BACKUP_TASK_NOT_FOUND: [404, 'Backup task not found.'],
  BACKUP_TASK_NAME_EXISTS: [409, 'A backup task with this name already exists.'],
  BACKUP_TASK_INVALID: [400, 'The backup task is invalid.'],
  BACKUP_TASK_BATCH_INVALID: [400, 'The batch request is invalid.'],
  BACKUP_TASK_ALREADY_RUNNING: [409, 'The task already has a queued or running backup.'],
  BACKUP_TASK_OUTSIDE_WINDOW: [400, 'The task may not run outside its maintenance windows.'],
  BACKUP_TASK_IMPORT_INVALID: [400, 'The file is not a task export this server can read.'],
  BACKUP_TASK_IMPORT_REFERENCE_NOT_FOUND: [400, 'The imported task names a storage target or node that does not exist on this server.'],
  NODE_OFFLINE: [409, 'The node that runs this task is not available.'],
  // nodes
  NODE_NOT_FOUND: [404, 'Node not found.'],
  NODE_DUPLICATE_NAME: [409, 'A node with this name already exists.'],
  NODE_HAS_TASKS: [409, 'The node has backup tasks or queued or running backups.'],
  NODE_BATCH_EMPTY: [400, 'The batch names no nodes.'],
  NODE_BATCH_TOO_MANY: [400, 'A batch may create at most 50 nodes.'],
  INSTALL_TOKEN_RATE_LIMITED: [429, 'This node has too many unused installer tokens; wait for one to expire or be used.'],
  INSTALL_TOKEN_INVALID: [404, 'The installer link is invalid, used or expired.'],
  INSTALL_ENROLL_INVALID: [401, 'The enrollment code is invalid, used or expired.'],
  TASK_TEMPLATE_NOT_FOUND: [404, 'Task template not found.'],
  TASK_TEMPLATE_NAME_EXISTS: [409, 'A task template with this name already exists.'],
  TASK_TEMPLATE_INVALID: [400, 'The task template request is invalid.'],
  // backup records
  BACKUP_RECORD_NOT_FOUND: [404, 'Backup record not found.'],
  BACKUP_RECORD_FILTER_INVALID: [400, 'Invalid backup record filter.'],
  BACKUP_RECORD_BATCH_INVALID: [400, 'The batch request is invalid.'],
  BACKUP_RECORD_LOCK_INVALID: [409, 'The lock state cannot be changed now.'],
  BACKUP_RECORD_LOCKED: [409, 'The record is locked against deletion.'],
  BACKUP_RECORD_RUNNING: [409, 'The backup is still queued or running.'],
  BACKUP_RECORD_NO_ARTIFACT: [409, 'The record holds no artifact.'],
  BACKUP_RECORD_DELETE_FAILED: [502, 'A copy of the artifact could not be deleted; the record is kept and deletion will be retried.'],
  BACKUP_RECORD_DOWNLOAD_FAILED: [502, 'No storage target could deliver the artifact.'],
  BACKUP_RANGE_NOT_SATISFIABLE: [416, 'The requested range is outside the artifact.'],
  BACKUP_CONTENTS_UNAVAILABLE: [422, 'This record has no browsable contents.'],
  // restore, verification, replication
  RESTORE_SOURCE_INVALID: [400, 'This record cannot be restored.'],
  RESTORE_TARGET_INVALID: [400, 'The restore target is invalid.'],
  RESTORE_RECORD_NOT_FOUND: [404, 'Restore record not found.'],
  VERIFY_RECORD_NOT_FOUND: [404, 'Verification record not found.'],
  VERIFY_NO_SOURCE: [409, 'The task has no successful backup to verify.'],
  VERIFY_SOURCE_INVALID: [400, 'This record cannot be verified.'],
  REPLICATION_NOT_FOUND: [404, 'Replication record not found.'],
  REPLICATION_SOURCE_INVALID: [400, 'This record cannot be replicated.'],
  REPLICATION_DEST_INVALID: [400, 'The replication destination is invalid.'],
  REPLICATION_DEST_DISABLED: [400, 'The replication destination is disabled.'],
  // database discovery
  DATABASE_DISCOVER_INVALID: [400, 'The connection details are invalid.'],
  DATABASE_DISCOVER_INVALID_TYPE: [400, 'Unknown database type.'],
  DATABASE_DISCOVER_FAILED: [400, 'The database server could not be queried.'],
  // settings, audit, system
  SETTINGS_INVALID: [400, 'Invalid settings.'],
  AUDIT_FILTER_INVALID: [400, 'Invalid audit log filter.'],
  UPDATE_CHECK_FAILED: [502, 'The release feed could not be reached.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
