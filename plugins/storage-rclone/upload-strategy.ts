/**
 * Backends whose uploads are atomic by protocol: an S3/GCS/Azure/B2 object appears only once its
 * (multipart) upload is completed, so `rcat` straight to the key cannot leave a part, and a
 * rename would be a server-side copy of the whole object. Everything else (local, sftp, ftp,
 * webdav, smb... measured: a killed `rcat` leaves a truncated file on local and sftp) uploads to
 * a temporary name and is moved into place.
 */
const ATOMIC_UPLOAD = new Set(['s3', 'gcs', 'azureblob', 'b2']);

export type UploadStrategy = 'direct' | 'temp-then-move';

export function uploadStrategy(backend: string): UploadStrategy {
  return ATOMIC_UPLOAD.has(backend) ? 'direct' : 'temp-then-move';
}
