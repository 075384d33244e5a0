import type { OidcProviderConfig } from './oidc-providers.ts';

/** The typed configuration every part of the master and the agent reads. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** `sqlite:<path>` (embedded default) or `postgres://...` (scale-out mode). */
  databaseUrl: string;
  /** Master key from the environment; when absent it lives in `<dataDir>/secret.key`. */
  secretKey: string | undefined;
  /** An age identity file every master shares (scale-out); when absent, `<dataDir>/backup.agekey` (created on first start). */
  ageIdentityFile: string | undefined;
  externalUrl: string | undefined;
  /** The WebAuthn relying-party id (a host name); defaults to the external URL's host. */
  webauthnRpId: string | undefined;
  /** Origins passkey responses may come from; default: the external URL's origin. */
  webauthnOrigins: string[];
  trustedProxies: string[];
  /** Browser origins (exact `scheme://host[:port]`) that may call the API cross-origin (CORS); empty: CORS off. */
  corsOrigins: string[];
  logLevel: string;
  plugins: string[];
  /** Plugins not to load (plugin, package or plugins/ folder names). */
  pluginsDisabled: string[];
  maxConcurrent: number;
  nodeOfflineSeconds: number;
  commandLeaseSeconds: number;
  /** How long a node's previous token keeps working after a rotation (seconds; 0 = not at all). */
  tokenRotationGraceSeconds: number;
  /** Absolute folders of the master that `GET /api/nodes/<local node>/fs/list` may show; empty = none. */
  localFsRoots: string[];
  /** How often running backups are checked against their task's time limit (ms). */
  runLimitCheckMs: number;
  /** The length of one minute of a task's `timeoutMinutes` (ms): 60 000; tests shorten it. Not read from the environment. */
  runLimitMinuteMs: number;
  /** Seconds between storage health checks; 0 disables them. */
  storageHealthIntervalSeconds: number;
  /** Seconds between sweeps of stale temporary upload objects on every enabled target; 0 disables them. */
  tempSweepIntervalSeconds: number;
  /** How long one notification delivery may take before it counts as failed (seconds). */
  notifyTimeoutSeconds: number;
  /** The first retry of a failed delivery waits this long; each further one twice as long, up to an hour (seconds). */
  notifyRetryBaseSeconds: number;
  /** Attempts of one delivery before it is given up. */
  notifyMaxAttempts: number;
  /** The same event for the same subject within this many seconds is folded into the first message; 0 = never. */
  notifyCoalesceSeconds: number;
  /** How long restic waits for a repository another restic holds locked (seconds; restic 0.14 itself does not wait). */
  repositoryLockWaitSeconds: number;
  /** Seconds between scans for tasks past their RPO (`slaHoursRpo`); 0 disables them. */
  slaScanIntervalSeconds: number;
  /** A deep verification older than this no longer proves a task's RTO: it shows as `unmeasured` (seconds). */
  rtoEvidenceMaxAgeSeconds: number;
  jwtTtlSeconds: number;
  /** Failed sign-ins in a row after which an account refuses every client but its trusted ones (docs/account-security.md#the-cap-on-failed-sign-ins). */
  loginLockoutThreshold: number;
  /** How long such a lock lasts unless an admin lifts it first (seconds). */
  loginLockoutSeconds: number;
  /** Failed sign-ins in a row from one trusted client after which it stops being trusted. */
  loginDeviceMaxFailures: number;
  updateFeedUrl: string;
  updateCheckTimeoutMs: number;
  googleAuthUrl: string;
  googleTokenUrl: string;
  googleApiUrl: string;
  /** Serve the web console at `/` (BACKPLANE_CONSOLE=off turns it off; the API is served either way). */
  console: boolean;
  /** The console's build output; when absent, packages/console/dist of this installation. */
  consoleDir: string | undefined;
  /** Root of the Backplane installation: where `plugins/` and the root package.json live. */
  projectRoot: string;
  /** Single sign-on: the OpenID Connect providers (`oidc.providers`; docs/account-security.md). */
  oidcProviders: OidcProviderConfig[];
  /** `all`: every account may sign in with its password; `break-glass`: only `breakGlassUsers` (the rest use SSO). */
  localLogin: 'all' | 'break-glass';
  /** The accounts that keep password sign-in when `localLogin` is `break-glass` (`auth.breakGlassUsers`). */
  breakGlassUsers: string[];
}
