import { isAbsolute, resolve } from 'node:path';
import { ProviderError, type StorageType } from '@backplane/plugin-api';
import { LocalDiskStorage } from './local-storage.ts';

const MAX_PATH = 4096;

/** A folder on the machine that runs the operation: the master, or an agent for agent-direct uploads. */
export const localDiskType: StorageType = {
  type: 'local_disk',
  displayName: 'Local disk',
  description:
    'A folder on a disk of the machine that runs the backup: an internal disk, a USB drive, or a mounted NAS share.',
  configSchema: {
    type: 'object',
    required: ['basePath'],
    additionalProperties: false,
    properties: {
      basePath: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_PATH,
        // Absolute: `/...` on Linux and macOS, `C:\...` or `\\server\share` on Windows.
        pattern: '^(/|[A-Za-z]:[\\\\/]|\\\\\\\\)',
        description: 'Absolute path of an existing folder that holds the backups.',
        examples: ['/var/backups/backplane', '/mnt/nas/backups'],
      },
    },
  },
  secretFields: [],
  capabilities: { range: true, usage: true, oauth: false },
  options: [
    {
      name: 'basePath',
      help:
        'Absolute path of the folder that holds the backups, on the machine that runs the operation. ' +
        'It must already exist: Backplane creates the folders below it but never the folder itself, so an unmounted disk ' +
        'fails loudly instead of filling the mount point. Files are written with mode 0600.',
      required: true,
      secret: false,
      examples: ['/var/backups/backplane', '/mnt/nas/backups'],
    },
  ],
  create(config) {
    const basePath = config.basePath;
    if (typeof basePath !== 'string' || basePath === '')
      throw new ProviderError('permanent', 'local disk: basePath is required');
    if (basePath.length > MAX_PATH)
      throw new ProviderError('permanent', `local disk: basePath is longer than ${MAX_PATH} characters`);
    if (basePath.includes('\0')) throw new ProviderError('permanent', 'local disk: basePath contains a NUL character');
    if (!isAbsolute(basePath))
      throw new ProviderError(
        'permanent',
        `local disk: basePath must be an absolute path (got ${JSON.stringify(basePath)})`,
      );
    return new LocalDiskStorage(resolve(basePath));
  },
};
