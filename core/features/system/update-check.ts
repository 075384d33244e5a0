import { AppError } from '../../http/app-error.ts';

export interface UpdateInfo {
  currentVersion: string;
  latestVersion: string;
  hasUpdate: boolean;
  releaseUrl: string;
  releaseNotes: string;
  /** Absent when the feed gives no date, as the reference omits it. */
  publishedAt?: string;
  downloadUrl: string;
}

/** Compares dotted versions numerically (a leading "v" and pre-release suffixes are ignored). */
export function isNewer(latest: string, current: string): boolean {
  const parts = (v: string) =>
    v
      .replace(/^v/i, '')
      .split(/[-+]/)[0]!
      .split('.')
      .map((n) => Number.parseInt(n, 10) || 0);
  const a = parts(latest);
  const b = parts(current);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return false;
}

interface Release {
  tag_name?: unknown;
  html_url?: unknown;
  body?: unknown;
  published_at?: unknown;
  tarball_url?: unknown;
}

/**
 * Asks the release feed (GitHub's "latest release" JSON shape) for the newest version.
 * Bounded by a short timeout: an unreachable feed is a clear 502, never a hung request.
 */
export async function checkForUpdate(feedUrl: string, currentVersion: string, timeoutMs: number): Promise<UpdateInfo> {
  let release: Release;
  try {
    const res = await fetch(feedUrl, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json', 'user-agent': `Backplane/${currentVersion}` },
    });
    if (!res.ok) throw new Error(`feed answered HTTP ${res.status}`);
    release = (await res.json()) as Release;
  } catch (err) {
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    throw new AppError('UPDATE_CHECK_FAILED', {
      message: `The release feed could not be reached: ${reason}.`,
      cause: err,
    });
  }
  if (typeof release?.tag_name !== 'string')
    throw new AppError('UPDATE_CHECK_FAILED', { message: 'The release feed answered without a version.' });
  const latestVersion = release.tag_name.replace(/^v/i, '');
  return {
    currentVersion,
    latestVersion,
    hasUpdate: isNewer(latestVersion, currentVersion),
    releaseUrl: typeof release.html_url === 'string' ? release.html_url : '',
    releaseNotes: typeof release.body === 'string' ? release.body.slice(0, 20_000) : '',
    ...(typeof release.published_at === 'string' ? { publishedAt: release.published_at } : {}),
    downloadUrl: typeof release.tarball_url === 'string' ? release.tarball_url : '',
  };
}
