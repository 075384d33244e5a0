import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AgentConfig } from './config.ts';
import { AgentConfigError } from './config.ts';
import { retryWithBackoff } from './backoff.ts';
import { isRetryable, MasterClient, MasterError } from './master-client.ts';
import type { EnrollInput, EnrollReply } from '../core/agent-protocol/wire.ts';

const TOKEN_PATTERN = /^bpn_[0-9a-f]{64}$/;

/** The token file's content, trimmed; '' when the file is missing or empty. */
export async function readTokenFile(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new AgentConfigError(`cannot read the token file ${path}: ${(err as Error).message}`);
  }
}

/** Writes the token readable by the owner only; a crash mid-write never leaves a half token under the name. */
export async function writeTokenFile(path: string, token: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** Exchanges a one-time enrollment code for the node token (no token header: the agent has none yet). */
export async function enroll(client: MasterClient, code: string, signal?: AbortSignal): Promise<string> {
  const body: EnrollInput = { code };
  let reply: EnrollReply;
  try {
    reply = await retryWithBackoff(
      () => client.post<EnrollReply>('/api/install/enroll', body, { anonymous: true, signal }),
      { retryable: isRetryable, signal },
    );
  } catch (err) {
    if (err instanceof MasterError && err.status !== undefined && err.status >= 400 && err.status < 500) {
      throw new AgentConfigError(
        `enrollment refused (${err.code}): the code may be used or expired; create a new installer for this node`,
      );
    }
    throw err;
  }
  // Typed as the wire says, checked anyway: the reply crosses a process.
  if (typeof reply?.token !== 'string' || !TOKEN_PATTERN.test(reply.token))
    throw new Error('the enrollment reply held no agent token');
  return reply.token;
}

export interface TokenResolution {
  token: string;
  /** How it was found, for one log line (never the token itself). */
  origin: 'flag-or-env' | 'token-file' | 'enrollment';
}

/**
 * The node token: given directly, else from the token file, else by enrollment (kept in the
 * token file when there is one). A token file that holds a token makes the code irrelevant,
 * so a container restarted with its enrollment code still in the environment keeps its identity.
 */
export async function resolveToken(
  config: AgentConfig,
  makeClient: (token: string) => MasterClient,
  signal?: AbortSignal,
): Promise<TokenResolution> {
  if (config.token) return { token: config.token, origin: 'flag-or-env' };
  const fromFile = config.tokenFile ? await readTokenFile(config.tokenFile) : '';
  if (fromFile) return { token: fromFile, origin: 'token-file' };
  if (!config.enrollCode)
    throw new AgentConfigError(
      `the token file ${config.tokenFile ?? ''} is missing or empty (set BACKPLANE_AGENT_ENROLL_CODE to enroll)`,
    );
  const client = makeClient('');
  try {
    const token = await enroll(client, config.enrollCode, signal);
    if (config.tokenFile) await writeTokenFile(config.tokenFile, token);
    return { token, origin: 'enrollment' };
  } finally {
    client.close();
  }
}
