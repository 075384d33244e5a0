// The entry of @backplane/plugin-api. Inside the Backplane repository (where npm links this
// workspace, and Node follows the link to packages/plugin-api, outside node_modules) the
// TypeScript source runs as it is, so there is no build step and no stale output. A published
// copy ships no src/, only the compiled dist/ (Node does not strip types under node_modules).
import { existsSync } from 'node:fs';

const source = new URL('./src/index.ts', import.meta.url);
const api = await import(existsSync(source) ? source.href : './dist/index.js');

// Every value export of src/index.ts (test/plugin-kit/entries.test.ts checks the list is complete).
export const {
  ProviderError,
  providerErrorKind,
  PLUGIN_API_VERSION,
  PLUGIN_BRAND,
  PLUGIN_NAME_PATTERN,
  PROVIDER_TYPE_PATTERN,
  definePlugin,
  isPlugin,
  configReaders,
  oneDatabase,
  MAX_KEY_LENGTH,
  TEMP_UPLOAD_NAME,
  temporaryUploadName,
  isTemporaryUploadOf,
  pathLikeSegmentProblem,
  segmentProblem,
  keySegments,
  prefixParts,
  cleanMessage,
  runDump,
  runRestore,
  toolStream,
  toolAvailable,
  cleanEnv,
  toolEnv,
  writeSecretFile,
  diskUsage,
  UNSET_OPTION,
  SECRET_MASK,
  sameSetting,
  redactSecrets,
  statusKind,
  deliverHttp,
  httpUrlProblem,
  SEVERITY_COLOURS,
  truncate,
  escapeHtml,
  shownFields,
} = api;
