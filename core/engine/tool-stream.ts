import { spawn, spawnSync } from 'node:child_process';
import { Duplex, PassThrough } from 'node:stream';

const available = new Map<string, boolean>();

/** Whether `command --version` runs (checked once per command). */
export function toolAvailable(command: string): boolean {
  let ok = available.get(command);
  if (ok === undefined) {
    ok = spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 5000 }).status === 0;
    available.set(command, ok);
  }
  return ok;
}

/**
 * A filter program as a Duplex: bytes written go to its stdin, its stdout comes out. The
 * output ends only once the program exited 0; any other exit (or a spawn failure) errors the
 * stream instead, so a failed filter never looks like a short, clean result. Destroying the
 * duplex kills the program.
 */
export function toolStream(command: string, args: string[]): Duplex {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => { if (stderr.length < 4096) stderr += c; });
  child.stdout.pipe(out, { end: false });
  child.stdin.on('error', () => undefined); // EPIPE when the program stops early: its exit status tells why
  const duplex = Duplex.from({ writable: child.stdin, readable: out });
  const fail = (err: Error): void => {
    if (!duplex.destroyed) duplex.destroy(err);
  };
  child.once('error', (err) => fail(new Error(`${command}: ${err.message}`)));
  child.once('close', (code, signal) => {
    if (code === 0) out.end();
    else fail(new Error(`${command} ${signal ? `was killed by ${signal}` : `exited with ${String(code)}`}${stderr ? `: ${stderr.trim()}` : ''}`));
  });
  duplex.once('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return duplex;
}
