import { OAuth2Client } from 'google-auth-library';
import type { drive_v3 } from '@googleapis/drive';
import { ProviderError } from '@backplane/plugin-api';
import type { GoogleEndpoints } from './endpoints.ts';

/**
 * Access to Google: an OAuth2Client from google-auth-library pointed at the configured OAuth
 * endpoints, and the Drive v3 client from @googleapis/drive pointed at the configured API root.
 */

/**
 * Only files this application created or the user opened with it. Backplane creates its folder
 * and every file below it, so it needs no more; a `folderId` must therefore name a folder
 * Backplane created (or one shared with the app through the Drive UI / Picker).
 */
export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive.file';

/** Metadata calls and token refreshes that take longer than this fail (and are retried by core). */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface DriveSettings {
  clientId: string;
  clientSecret: string;
  refreshToken?: string;
  /** The Drive folder holding the backups; undefined = the default folder in My Drive. */
  folderId?: string;
}

function text(config: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = config[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw new ProviderError('permanent', `google drive: ${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ProviderError('permanent', `google drive: ${field} must be a string`);
  return value.trim();
}

export function readSettings(config: Record<string, unknown>): DriveSettings {
  const settings: DriveSettings = {
    clientId: text(config, 'clientId', true)!,
    clientSecret: text(config, 'clientSecret', true)!,
  };
  const refreshToken = text(config, 'refreshToken', false);
  const folderId = text(config, 'folderId', false);
  if (refreshToken) settings.refreshToken = refreshToken;
  if (folderId) {
    // Drive ids are URL-safe base64-ish; refusing anything else keeps quotes out of `q` strings.
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(folderId))
      throw new ProviderError(
        'permanent',
        `google drive: folderId ${JSON.stringify(folderId.slice(0, 80))} is not a Drive folder id (the part after /folders/ in the folder's URL)`,
      );
    settings.folderId = folderId;
  }
  return settings;
}

export function oauthClient(settings: DriveSettings, endpoints: GoogleEndpoints, redirectUri?: string): OAuth2Client {
  const client = new OAuth2Client({
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    ...(redirectUri === undefined ? {} : { redirectUri }),
    endpoints: { oauth2AuthBaseUrl: endpoints.authUrl, oauth2TokenUrl: endpoints.tokenUrl },
    // An access token Google stopped accepting early (401) is refreshed once and the call repeated.
    forceRefreshOnFailure: true,
    transporterOptions: { timeout: REQUEST_TIMEOUT_MS },
  });
  if (settings.refreshToken) client.setCredentials({ refresh_token: settings.refreshToken });
  return client;
}

/** @googleapis/drive is loaded on first use: it costs start-up time every process would pay. */
let driveModule: Promise<typeof import('@googleapis/drive')> | undefined;

/**
 * Drive v3 on the configured API root. googleapis-common moves ordinary calls onto `rootUrl`;
 * media uploads take their URL from the per-call options only, so those pass `rootUrl` again.
 */
export async function driveClient(auth: OAuth2Client, endpoints: GoogleEndpoints): Promise<drive_v3.Drive> {
  driveModule ??= import('@googleapis/drive');
  const { drive } = await driveModule;
  return drive({ version: 'v3', auth, rootUrl: endpoints.apiUrl });
}
