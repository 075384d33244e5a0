import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Throwaway WebDAV and SFTP servers for storage tests: `rclone serve webdav|sftp` on 127.0.0.1,
 * serving a temp folder, with a user and password (wrong credentials are refused), started on
 * port 0 (the port is read back from rclone's log) and stopped (killed, folder removed) by stop().
 */

export interface RcloneServer {
  kind: 'webdav' | 'sftp';
  host: string;
  port: number;
  /** `http://127.0.0.1:<port>/` for WebDAV. */
  url: string;
  user: string;
  pass: string;
  /** The folder being served. */
  dir: string;
  pid: number;
  stop(): Promise<void>;
}

export interface ServerOptions {
  user?: string;
  pass?: string;
  /** How long to wait for the server to accept connections. */
  startTimeoutMs?: number;
}

const RCLONE = process.env.BACKPLANE_TEST_RCLONE ?? 'rclone';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('could not find a free port');
  return address.port;
}

async function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

async function start(kind: 'webdav' | 'sftp', options: ServerOptions): Promise<RcloneServer> {
  const user = options.user ?? 'backplane';
  const pass = options.pass ?? `pw-${Math.random().toString(36).slice(2)}`;
  const base = await mkdtemp(join(tmpdir(), `backplane-rclone-${kind}-`));
  const dir = join(base, 'served');
  // --dir-cache-time 0s: files a test places in the folder directly are served at once.
  const args = ['serve', kind, dir, '--addr', '127.0.0.1:0', '--user', user, '--pass', pass, '--dir-cache-time', '0s'];
  // SFTP: no keys from ~/.ssh count, and the host keys rclone generates go into the temp folder.
  if (kind === 'sftp') args.push('--authorized-keys', '/dev/null', '--cache-dir', join(base, 'cache'));
  await mkdir(dir, { recursive: true });
  const child = spawn(RCLONE, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, RCLONE_CONFIG: '/dev/null' },
  });
  let log = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    if (log.length < 64 * 1024) log += chunk;
  });
  const cleanup = async () => {
    await stopChild(child);
    await rm(base, { recursive: true, force: true });
  };
  try {
    const pattern =
      kind === 'webdav'
        ? /WebDav Server started on http:\/\/127\.0\.0\.1:(\d+)\//i
        : /SFTP server listening on 127\.0\.0\.1:(\d+)/i;
    const deadline = Date.now() + (options.startTimeoutMs ?? START_TIMEOUT_MS);
    let port: number | undefined;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`rclone serve ${kind} exited with code ${child.exitCode}: ${log}`);
      const match = pattern.exec(log);
      if (match) {
        port = Number(match[1]);
        ready = await accepts('127.0.0.1', port);
      }
      if (!ready) await sleep(50);
    }
    if (!ready || port === undefined)
      throw new Error(
        `rclone serve ${kind} did not accept connections within ${(options.startTimeoutMs ?? START_TIMEOUT_MS) / 1000} s: ${log}`,
      );
    return {
      kind,
      host: '127.0.0.1',
      port,
      url: `http://127.0.0.1:${port}/`,
      user,
      pass,
      dir,
      pid: child.pid!,
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** `rclone serve webdav` on 127.0.0.1 with basic auth. */
export function startWebdavServer(options: ServerOptions = {}): Promise<RcloneServer> {
  return start('webdav', options);
}

/** `rclone serve sftp` on 127.0.0.1 with password auth only. */
export function startSftpServer(options: ServerOptions = {}): Promise<RcloneServer> {
  return start('sftp', options);
}
