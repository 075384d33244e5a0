import { ProviderError } from '@backplane/plugin-api';
import { COMMAND_DEADLINE_MS, STANDARD, type RcloneRunner } from './rclone-runner.ts';

/** `about --json`: what the backend reports of its capacity; figures it does not give are left out. */
export async function remoteUsage(
  r: RcloneRunner,
): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }> {
  const ready = await r.prepare();
  const result = await r.run(ready, { op: 'about', path: '' }, STANDARD, { deadlineMs: COMMAND_DEADLINE_MS });
  if (result.code !== 0 && /doesn't support about|not supported|unsupported/i.test(result.stderr)) {
    throw new ProviderError('unsupported', `rclone ${r.def.backend}: the backend does not report its capacity`);
  }
  const failure = r.failure('about', result, ready, STANDARD, COMMAND_DEADLINE_MS);
  if (failure) throw failure;
  const about = JSON.parse(result.stdout.toString('utf8') || '{}') as { total?: number; used?: number; free?: number };
  const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
  const out: { usedBytes?: number; totalBytes?: number; freeBytes?: number } = {};
  const used = count(about.used);
  const total = count(about.total);
  const free = count(about.free);
  if (used !== undefined) out.usedBytes = used;
  if (total !== undefined) out.totalBytes = total;
  if (free !== undefined) out.freeBytes = free;
  return out;
}
