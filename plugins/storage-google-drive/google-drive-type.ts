import type { StorageType } from '@backplane/plugin-api';
import { resolveEndpoints, type GoogleEndpoints } from './endpoints.ts';
import { readSettings } from './google-client.ts';
import { GoogleDriveStorage } from './google-drive-storage.ts';
import { googleDriveOAuth } from './oauth.ts';
import { DEFAULT_FOLDER_NAME } from './folder-tree.ts';
import { DEFAULT_TUNING, type UploadTuning } from './resumable-upload.ts';

export interface GoogleDriveTypeOptions extends Partial<GoogleEndpoints> {
  /** Upload tuning (chunk size, retries); tests shrink the back-off. */
  upload?: Partial<UploadTuning>;
}

/**
 * The `google_drive` storage type. Endpoints given here are fixed; the rest come from
 * BACKPLANE_GOOGLE_AUTH_URL / _TOKEN_URL / _API_URL in `deps.env` (process.env for authUrl,
 * which gets no deps), else Google's own.
 */
export function createGoogleDriveType(options: GoogleDriveTypeOptions = {}): StorageType {
  const { upload, ...fixed } = options;
  const tuning: UploadTuning = { ...DEFAULT_TUNING, ...upload };
  return {
    type: 'google_drive',
    displayName: 'Google Drive',
    description:
      "A folder in Google Drive, authorised once through Google's consent page (OAuth); uploads are resumable and streamed.",
    configSchema: {
      type: 'object',
      required: ['clientId', 'clientSecret'],
      additionalProperties: false,
      properties: {
        clientId: {
          type: 'string',
          minLength: 1,
          maxLength: 512,
          description:
            'OAuth client ID of a Google Cloud project (an OAuth client of type "Web application" with the Drive API enabled).',
        },
        clientSecret: { type: 'string', minLength: 1, maxLength: 512, description: "The OAuth client's secret." },
        folderId: {
          type: 'string',
          maxLength: 256,
          pattern: '^[A-Za-z0-9_-]*$',
          description: `Id of the Drive folder that holds the backups. Empty: a folder named "${DEFAULT_FOLDER_NAME}" in My Drive, created on first use.`,
        },
        refreshToken: {
          type: 'string',
          maxLength: 4096,
          description: 'Set by the authorisation flow; not entered by hand.',
        },
      },
    },
    secretFields: ['clientSecret', 'refreshToken'],
    capabilities: { range: true, usage: true, oauth: true },
    options: [
      {
        name: 'clientId',
        help:
          'OAuth client ID from the Google Cloud console (APIs & Services > Credentials, type "Web application"). ' +
          "Add Backplane's callback URL (<external URL>/storage-targets/google-drive/callback) as an authorised redirect URI and enable the Google Drive API.",
        required: true,
        secret: false,
        examples: ['1234567890-abc123def456.apps.googleusercontent.com'],
      },
      { name: 'clientSecret', help: "The OAuth client's secret.", required: true, secret: true },
      {
        name: 'folderId',
        help:
          'Id of the Drive folder for the backups (the last part of its URL). ' +
          `Leave empty to let Backplane create and use "${DEFAULT_FOLDER_NAME}" in My Drive. ` +
          'Backplane asks only for access to files it creates (drive.file scope), so a folder made by hand in Drive is not visible to it.',
        required: false,
        secret: false,
        default: '',
      },
      {
        name: 'refreshToken',
        help: 'Stored by the authorisation flow (Connect to Google); never entered by hand.',
        required: false,
        secret: true,
        advanced: true,
      },
    ],
    oauth: googleDriveOAuth(fixed),
    create(config, deps) {
      return GoogleDriveStorage.open(
        readSettings(config),
        resolveEndpoints(fixed, deps.env ?? process.env),
        tuning,
        deps.log,
      );
    },
  };
}
