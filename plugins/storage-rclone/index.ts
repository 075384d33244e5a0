import { definePlugin } from '@backplane/plugin-api';
import { loadCatalogue } from './catalogue.ts';
import { rcloneStorageTypes } from './storage-types.ts';

/** The rclone binary: `BACKPLANE_RCLONE_BINARY`, else `rclone` on PATH. */
export function rcloneBinary(env: Record<string, string | undefined> = process.env): string {
  return env.BACKPLANE_RCLONE_BINARY || 'rclone';
}

/**
 * Built-in storage through the installed rclone binary: one type per rclone backend (`s3`,
 * `webdav`, `sftp`, `local`...), a generic `rclone` type, and the S3-compatible cloud vendor
 * types (`aliyun_oss`, `tencent_cos`, `qiniu_kodo`). Without a usable rclone, boot goes
 * on with the generic and vendor types only, whose every operation is refused as `unsupported`.
 */
export default definePlugin({
  name: 'storage-rclone',
  apiVersion: 1,
  async register(app, { ext }) {
    const result = await loadCatalogue(rcloneBinary());
    if (!result.ok)
      app.log.warn(
        `storage-rclone: rclone is not installed or not usable (binary "${result.binary}": ${result.reason});` +
          ' only the generic "rclone" storage type and the cloud vendor types are registered, and they cannot be used',
      );
    for (const type of rcloneStorageTypes(result)) {
      // A type another plugin already provides (say a native `s3`) wins; the rclone one steps aside.
      if (ext.storage.has(type.type)) {
        app.log.info(
          `storage-rclone: storage type "${type.type}" is provided by another plugin; rclone's is not registered`,
        );
        continue;
      }
      ext.storage.addType(type);
    }
  },
});
