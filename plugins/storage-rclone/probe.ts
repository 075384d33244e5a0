import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ProviderError, type TestResult } from '@backplane/plugin-api';
import { MAX_REASON, redact, trimReason } from './errors.ts';
import { PROBE_PREFIX, checkKey } from './keys.ts';
import { getObject } from './download.ts';
import type { Call, RcloneRunner } from './rclone-runner.ts';
import { deleteFile, deleteQuietly } from './remote-files.ts';
import { putObject } from './upload.ts';

/** testConnection's whole write/read/delete probe (under core's 30 s test timeout, so rclone's reason wins). */
export const PROBE_DEADLINE_MS = 25_000;

/**
 * Writes a small probe object through the same path a backup takes (temporary name, move),
 * reads it back, compares, deletes it; short timeouts, bounded by PROBE_DEADLINE_MS overall.
 */
export async function probeRemote(r: RcloneRunner): Promise<TestResult> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new ProviderError('transient', `rclone: no answer within ${PROBE_DEADLINE_MS / 1000} s`)),
    PROBE_DEADLINE_MS,
  );
  const call: Call = { profile: 'probe', signal: controller.signal };
  const key = `${PROBE_PREFIX}${randomBytes(8).toString('hex')}`;
  const payload = randomBytes(64);
  let written = false;
  try {
    await putObject(r, key, Readable.from([payload]), payload.length, call);
    written = true;
    const stream = await getObject(r, key, undefined, call);
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > 4096) break;
      chunks.push(chunk);
    }
    if (!Buffer.concat(chunks).equals(payload))
      throw new ProviderError('permanent', 'rclone: the probe object read back differs from what was written');
    checkKey(key);
    await deleteFile(r, await r.prepare(), key, call);
    written = false;
    const where = r.def.root === '' ? 'its root' : JSON.stringify(r.def.root);
    return {
      success: true,
      message: `rclone ${r.def.backend}: wrote, read back and deleted a probe object in ${where}`,
    };
  } catch (err) {
    const ready = await r.prepare().catch(() => undefined);
    if (written && ready) await deleteQuietly(r, ready, key, 'probe').catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    return { success: false, message: trimReason(redact(message, ready?.secrets ?? r.def.secretValues), MAX_REASON) };
  } finally {
    clearTimeout(timer);
  }
}
