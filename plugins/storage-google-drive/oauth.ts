import { ProviderError, type ProviderDeps, type StorageOAuth } from '@backplane/plugin-api';
import { resolveEndpoints, type GoogleEndpoints } from './endpoints.ts';
import { describeFailure, toProviderError } from './errors.ts';
import { DRIVE_SCOPE, REQUEST_TIMEOUT_MS, driveClient, oauthClient, readSettings } from './google-client.ts';

/**
 * The OAuth half of the type: core runs the flow (state, sessions, callback), this builds
 * Google's consent URL, exchanges the code for a refresh token and reads the connected account.
 */
/** Scopes that let the provider work: its own, or full Drive access granted some other way. */
const DRIVE_SCOPES = new Set([DRIVE_SCOPE, 'https://www.googleapis.com/auth/drive']);

export function googleDriveOAuth(fixed: Partial<GoogleEndpoints>): StorageOAuth {
  const endpointsFor = (deps?: ProviderDeps) => resolveEndpoints(fixed, deps?.env ?? process.env);

  return {
    authUrl(config, { state, redirectUri }, deps) {
      const settings = readSettings(config);
      return oauthClient(settings, endpointsFor(deps), redirectUri).generateAuthUrl({
        // offline + consent: Google returns a refresh token on every authorisation, not only the first.
        access_type: 'offline',
        prompt: 'consent',
        scope: [DRIVE_SCOPE],
        state,
      });
    },

    async exchange(config, { code, redirectUri }, deps) {
      const settings = readSettings(config);
      const client = oauthClient(settings, endpointsFor(deps), redirectUri);
      let refreshToken: string | null | undefined;
      let scope: string | null | undefined;
      try {
        const { tokens } = await client.getToken({ code, redirect_uri: redirectUri });
        refreshToken = tokens.refresh_token;
        scope = tokens.scope;
      } catch (err) {
        const failure = describeFailure(err);
        const error = toProviderError(err, 'authorisation');
        // A refused code, client or redirect URI is the user's to fix, whatever the status.
        if (failure.oauth && error.kind !== 'transient') throw new ProviderError('auth', error.message, { cause: err });
        throw error;
      }
      // Google's consent screen lets the user untick single permissions; without Drive the
      // target could never work, so say so now rather than at the first backup.
      if (typeof scope === 'string' && !scope.split(' ').some((s) => DRIVE_SCOPES.has(s))) {
        throw new ProviderError(
          'auth',
          `google drive: the Google Drive permission was not granted (granted: ${scope || 'nothing'}); authorise again and allow access to Drive`,
        );
      }
      if (!refreshToken) {
        throw new ProviderError(
          'auth',
          "google drive: Google returned no refresh token. Remove Backplane's access at " +
            'https://myaccount.google.com/permissions and authorise again.',
        );
      }
      return { refreshToken };
    },

    async profile(config, deps) {
      const settings = readSettings(config);
      if (!settings.refreshToken)
        throw new ProviderError('auth', 'google drive: the target is not authorised yet (no refresh token)');
      const endpoints = endpointsFor(deps);
      const drive = await driveClient(oauthClient(settings, endpoints), endpoints);
      try {
        const { data } = await drive.about.get(
          { fields: 'user(displayName,emailAddress,photoLink)' },
          { timeout: REQUEST_TIMEOUT_MS },
        );
        return {
          email: data.user?.emailAddress ?? '',
          name: data.user?.displayName ?? '',
          picture: data.user?.photoLink ?? '',
        };
      } catch (err) {
        throw toProviderError(err, 'reading the account profile');
      }
    },
  };
}
