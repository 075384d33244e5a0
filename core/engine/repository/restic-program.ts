import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * The restic binary and its version. 0.14.0 is the oldest restic the repository mode runs: the
 * first with repository format 2 (compression) and `copy --from-repo`; Debian 12 ships it.
 */

export const RESTIC_MINIMUM_VERSION = '0.14.0';

const INSTALL_HINT =
  'apt-get install restic (Debian 12 and later), or a release from https://github.com/restic/restic/releases ' +
  'named by BACKPLANE_RESTIC_BINARY';

export interface ResticProgram {
  /** What to run: BACKPLANE_RESTIC_BINARY, else `restic` (found on PATH). */
  command: string;
  /** `major.minor.patch` as `restic version` printed it. */
  version: string;
}

const run = promisify(execFile);
/** One probe per binary per process; a failed probe is forgotten, so installing restic needs no restart. */
const probes = new Map<string, Promise<ResticProgram>>();

/** The version in `restic version`'s line: `restic 0.14.0 compiled with go1.19.8 on linux/amd64`. */
export function parseResticVersion(output: string): string | undefined {
  return /^restic (\d+\.\d+\.\d+)/m.exec(output)?.[1];
}

/** Whether `version` is `minimum` or newer (both `major.minor.patch`). */
export function versionAtLeast(version: string, minimum: string): boolean {
  const have = version.split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * The restic to run, checked once: one Error naming what to install when it is missing, does not
 * answer `restic version`, or is older than RESTIC_MINIMUM_VERSION.
 */
export function findRestic(env: NodeJS.ProcessEnv = process.env): Promise<ResticProgram> {
  const command = env.BACKPLANE_RESTIC_BINARY || 'restic';
  const key = `${command}\0${env.PATH ?? ''}`; // a bare name is looked up on this PATH
  let probe = probes.get(key);
  if (!probe) {
    probe = probeRestic(command, env.PATH);
    probes.set(key, probe);
    // the caller awaits the probe itself; this only forgets a failed one
    void probe.catch(() => probes.delete(key));
  }
  return probe;
}

async function probeRestic(command: string, path: string | undefined): Promise<ResticProgram> {
  const minimum = RESTIC_MINIMUM_VERSION.replace(/\.0$/, '');
  let stdout: string;
  try {
    ({ stdout } = await run(command, ['version'], {
      env: { PATH: path ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' },
      timeout: 10_000,
    }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') {
      throw new Error(`restic ${minimum} or newer is required (${command} was not found): ${INSTALL_HINT}`);
    }
    throw new Error(`restic ${minimum} or newer is required (${command} version failed: ${(err as Error).message})`);
  }
  const version = parseResticVersion(stdout);
  if (!version) {
    throw new Error(
      `restic ${minimum} or newer is required (${command} version printed ${JSON.stringify(stdout.slice(0, 200))})`,
    );
  }
  if (!versionAtLeast(version, RESTIC_MINIMUM_VERSION)) {
    throw new Error(`restic ${minimum} or newer is required (found ${version} at ${command}): ${INSTALL_HINT}`);
  }
  return { command, version };
}
