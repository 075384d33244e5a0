import { AppError } from '../../http/app-error.ts';

export const INSTALL_MODES = ['systemd', 'docker', 'foreground'] as const;
export const INSTALL_ARCHES = ['auto', 'amd64', 'arm64'] as const;
export const DOWNLOAD_SOURCES = ['github', 'ghproxy'] as const;
type InstallMode = (typeof INSTALL_MODES)[number];
type InstallArch = (typeof INSTALL_ARCHES)[number];
type DownloadSource = (typeof DOWNLOAD_SOURCES)[number];

/** Where releases are published: the repository the update check (BACKPLANE_UPDATE_FEED_URL's default) reads. */
const RELEASES_REPOSITORY = 'https://github.com/backplane-dev/backplane';
/** The container image the docker mode and the compose file run, tagged with the agent version. */
const AGENT_IMAGE_NAME = 'backplane';

/** What an installer installs and how the agent reaches the master (the installer options). */
export interface InstallOptions {
  mode: InstallMode;
  arch: InstallArch;
  /** The release the script runs or downloads. */
  agentVersion: string;
  downloadSrc: DownloadSource;
  /** The master URL the agent uses; '' = the URL the installer was made or served from. */
  agentMasterUrl: string;
  /** An http(s) proxy the script and the agent reach the master through; '' = none. */
  proxyUrl: string;
  /** A CA bundle on the node trusted for an https master; '' = the system's. */
  caCertFile: string;
}

/** The options as a request names them ('' or absent = the default). */
interface InstallOptionsInput {
  mode?: string;
  arch?: string;
  agentVersion?: string;
  downloadSrc?: string;
  agentMasterUrl?: string;
  proxyUrl?: string;
  caCertFile?: string;
}

const VERSION_PATTERN = /^[A-Za-z0-9._+-]{1,64}$/;
/** Characters that must never reach a shell word, a YAML scalar or a systemd EnvironmentFile line. */
const UNSAFE = /[\s"'`$\\]/;

/** The options an installer row was stored with (checked by `installOptions` before they were stored). */
export function storedOptions(row: {
  mode: string;
  arch: string;
  agentVersion: string;
  downloadSrc: string;
  agentMasterUrl: string;
  proxyUrl: string;
  caCertFile: string;
}): InstallOptions {
  return {
    mode: row.mode as InstallMode,
    arch: row.arch as InstallArch,
    agentVersion: row.agentVersion,
    downloadSrc: row.downloadSrc as DownloadSource,
    agentMasterUrl: row.agentMasterUrl,
    proxyUrl: row.proxyUrl,
    caCertFile: row.caCertFile,
  };
}

/** The release archive a downloading installer fetches, through the chosen mirror. */
export function downloadBase(src: DownloadSource): string {
  return src === 'ghproxy' ? `https://ghproxy.com/${RELEASES_REPOSITORY}` : RELEASES_REPOSITORY;
}

export function agentImage(options: Pick<InstallOptions, 'agentVersion'>): string {
  return `${AGENT_IMAGE_NAME}:${options.agentVersion}`;
}

/**
 * Checks and completes the installer options. Malformed values are 400 INVALID_INPUT
 * naming the field; well-formed values Backplane cannot serve are 400 INSTALL_OPTION_UNSUPPORTED.
 * Nothing is accepted and ignored: every option changes the script (see installer-script.ts).
 */
export function installOptions(
  input: InstallOptionsInput,
  masterVersion: string,
  where: 'body' | 'querystring',
): InstallOptions {
  const invalid = (field: string, message: string): AppError =>
    new AppError('INVALID_INPUT', { details: [{ path: `${where}/${field}`, message }] });
  // A release version may come in tag form (`v1.2.3`); Backplane's are bare (`backplane version`, the tag adds the v).
  const agentVersion = (input.agentVersion?.trim() || masterVersion).replace(/^v(?=\d)/, '');
  if (!VERSION_PATTERN.test(agentVersion))
    throw invalid('agentVersion', 'must be 1-64 letters, digits, ".", "_", "+" or "-"');
  const agentMasterUrl = (input.agentMasterUrl ?? '').trim().replace(/\/+$/, '');
  if (agentMasterUrl !== '' && !httpUrl(agentMasterUrl, false))
    throw invalid('agentMasterUrl', 'must be an http(s) URL without credentials, query, fragment, spaces or quotes');
  const proxyUrl = (input.proxyUrl ?? '').trim().replace(/\/+$/, '');
  if (proxyUrl !== '') {
    if (/^socks5h?:\/\//i.test(proxyUrl))
      throw new AppError('INSTALL_OPTION_UNSUPPORTED', {
        message: 'proxyUrl: the agent reaches the master through http or https proxies only, not SOCKS.',
      });
    if (!httpUrl(proxyUrl, true))
      throw invalid('proxyUrl', 'must be an http(s) proxy URL without credentials, path, query or fragment');
  }
  const caCertFile = (input.caCertFile ?? '').trim();
  if (
    caCertFile !== '' &&
    (!caCertFile.startsWith('/') ||
      caCertFile.length > 512 ||
      UNSAFE.test(caCertFile) ||
      caCertFile.split('/').some((part, i) => i > 0 && (part === '' || part === '.' || part === '..')))
  ) {
    throw invalid('caCertFile', 'must be a clean absolute path without spaces, quotes or shell characters');
  }
  return {
    mode: (input.mode || 'systemd') as InstallMode,
    arch: (input.arch || 'auto') as InstallArch,
    agentVersion,
    downloadSrc: (input.downloadSrc || 'github') as DownloadSource,
    agentMasterUrl,
    proxyUrl,
    caCertFile,
  };
}

/** An http(s) URL safe to embed anywhere; a proxy also has no path. */
function httpUrl(raw: string, proxy: boolean): boolean {
  if (raw.length > 2048 || UNSAFE.test(raw)) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (!url.hostname || url.username || url.password || url.search || url.hash || raw.includes('?') || raw.includes('#'))
    return false;
  return !proxy || url.pathname === '/';
}
