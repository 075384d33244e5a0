import { spawn } from 'node:child_process';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadCatalogue } from '../plugins/storage-rclone/catalogue.ts';
import { rcloneStorageTypes } from '../plugins/storage-rclone/storage-types.ts';

/**
 * storage-rclone throughput: one stream of `bytes` (default 1 GiB) through the plugin to rclone's
 * `local` backend (rcat to a temporary name + moveto; then cat back), against `rclone copy` of
 * the same file, and against the same transfer through rclone's remote-control daemon (`rclone
 * rcd`: operations/uploadfile up, --rc-serve down). Prints figures; asserts nothing.
 *
 *   node bench/storage-rclone.ts   (1 GiB, 3 rounds; BACKPLANE_BENCH_RCLONE_MB / _ROUNDS to change)
 */

const MiB = 1024 * 1024;
const BINARY = process.env.BACKPLANE_RCLONE_BINARY || 'rclone';

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** A file of `bytes` pseudo-random bytes (AES-CTR keystream), written in 4 MiB chunks. */
async function writeSource(path: string, bytes: number): Promise<void> {
  const cipher = createCipheriv('aes-256-ctr', randomBytes(32), randomBytes(16));
  const zeros = Buffer.alloc(4 * MiB);
  await pipeline(
    Readable.from(
      (function* generate() {
        for (let sent = 0; sent < bytes; sent += zeros.length)
          yield cipher.update(zeros.subarray(0, Math.min(zeros.length, bytes - sent)));
      })(),
    ),
    createWriteStream(path),
  );
}

function rcloneEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(RCLONE_|BACKPLANE_)/i.test(k)) env[k] = v;
  env.RCLONE_CONFIG = '/dev/null';
  return env;
}

async function runRclone(args: string[], stdinFile?: string): Promise<void> {
  const input = stdinFile === undefined ? undefined : await open(stdinFile, 'r');
  const child = spawn(BINARY, args, { stdio: [input ? input.fd : 'ignore', 'ignore', 'pipe'], env: rcloneEnv() });
  child.once('spawn', () => void input?.close());
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`rclone ${args[0]} failed (${String(code)}): ${stderr.slice(-500)}`);
}

/** Flushes dirty pages (`sync`), so a phase does not pay for the previous phase's writes. */
async function flush(): Promise<void> {
  await new Promise<void>((resolve) => {
    const child = spawn('sync', [], { stdio: 'ignore' });
    child.once('error', () => resolve());
    child.once('close', () => resolve());
  });
}

async function drain(stream: Readable): Promise<number> {
  let n = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) n += chunk.length;
  return n;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Rcd {
  upload(source: string, dest: string): Promise<void>;
  download(dest: string): Promise<number>;
  stop(): void;
}

/** A running `rclone rcd`: multipart upload to operations/uploadfile, download from --rc-serve. */
async function startRcd(bytes: number): Promise<Rcd> {
  const port = await freePort();
  const pass = randomBytes(12).toString('hex');
  const auth = `Basic ${Buffer.from(`bp:${pass}`).toString('base64')}`;
  const daemon = spawn(
    BINARY,
    [
      'rcd',
      '--rc-addr',
      `127.0.0.1:${port}`,
      '--rc-user',
      'bp',
      '--rc-pass',
      pass,
      '--rc-serve',
      '--log-level',
      'ERROR',
    ],
    { stdio: 'ignore', env: rcloneEnv() },
  );
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/rc/noop',
          headers: { authorization: auth, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      req.once('error', () => resolve(false));
      req.end('{}');
    });
    if (up) break;
    if (i > 200) {
      daemon.kill('SIGTERM');
      throw new Error('rclone rcd did not start within 10 s');
    }
    await sleep(50);
  }
  return {
    upload: (source, dest) =>
      new Promise<void>((resolve, reject) => {
        const boundary = `----backplane${randomBytes(8).toString('hex')}`;
        const head = Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file0"; filename="stream.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        );
        const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `/operations/uploadfile?fs=${encodeURIComponent(`:local:${dest}`)}&remote=bench`,
            headers: {
              authorization: auth,
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'content-length': head.length + bytes + tail.length,
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (c: string) => {
              body += c;
            });
            res.on('end', () =>
              res.statusCode === 200 ? resolve() : reject(new Error(`uploadfile ${String(res.statusCode)}: ${body}`)),
            );
          },
        );
        req.once('error', reject);
        pipeline(
          Readable.from(
            (async function* body() {
              yield head;
              yield* createReadStream(source, { highWaterMark: MiB });
              yield tail;
            })(),
          ),
          req,
        ).catch(reject);
      }),
    download: (dest) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'GET',
            path: `/[:local:${dest}]/bench/stream.bin`,
            headers: { authorization: auth },
          },
          (res) => {
            if (res.statusCode !== 200) reject(new Error(`rc-serve ${String(res.statusCode)}`));
            drain(res).then(resolve, reject);
          },
        );
        req.once('error', reject);
        req.end();
      }),
    stop: () => daemon.kill('SIGTERM'),
  };
}

function summary(label: string, bytes: number, times: number[]): void {
  const rates = times.map((ms) => bytes / MiB / (ms / 1000)).sort((a, b) => a - b);
  const spread = rates.length > 1 ? ` (${rates.map((r) => r.toFixed(0)).join(', ')})` : '';
  console.log(`${label.padEnd(64)} median ${median(rates).toFixed(0).padStart(5)} MiB/s${spread}`);
}

/**
 * Every method writes the same file `rounds` times, in a rotated order, each after a `sync`
 * (a VM's write-back makes whichever write follows a big one slower); reads come after.
 */
export async function benchStorageRclone(options: { bytes?: number; rounds?: number } = {}): Promise<void> {
  const bytes = options.bytes ?? Math.round(Number(process.env.BACKPLANE_BENCH_RCLONE_MB ?? 1024) * MiB);
  const rounds = options.rounds ?? Number(process.env.BACKPLANE_BENCH_RCLONE_ROUNDS ?? 3);
  const catalogue = await loadCatalogue(BINARY);
  if (!catalogue.ok) {
    console.log(`storage-rclone: skipped, rclone is not usable (${catalogue.reason})`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-rclone-'));
  let rcd: Rcd | undefined;
  try {
    const source = join(dir, 'stream.bin');
    await writeSource(source, bytes);
    console.log(
      `storage-rclone: ${(bytes / MiB).toFixed(0)} MiB stream to rclone's local backend (${tmpdir()}), ${rounds} rounds, rclone "${BINARY}"`,
    );
    const local = rcloneStorageTypes(catalogue).find((t) => t.type === 'local')!;
    const quiet = { info() {}, warn() {}, error() {} };
    rcd = await startRcd(bytes).catch((err: Error) => {
      console.log(`rclone rcd: not measured (${err.message})`);
      return undefined;
    });
    const writers: Array<[string, (out: string) => Promise<unknown>]> = [
      [
        'rclone copy <file> <dir> (baseline: MD5-checked, multi-thread)',
        (out) => runRclone(['copy', '--log-level', 'ERROR', source, out]),
      ],
      [
        'rclone copy --ignore-checksum (no MD5 check afterwards)',
        (out) => runRclone(['copy', '--log-level', 'ERROR', '--ignore-checksum', source, out]),
      ],
      [
        'rclone copy --multi-thread-streams 0 (one stream)',
        (out) => runRclone(['copy', '--log-level', 'ERROR', '--multi-thread-streams', '0', source, out]),
      ],
      [
        'rclone rcat --size, stdin = the file (no pipe, no Node)',
        (out) => runRclone(['rcat', '--log-level', 'ERROR', '--size', String(bytes), join(out, 'stream.bin')], source),
      ],
      [
        'plugin put: Node stream -> rcat (temp name) + moveto',
        async (out) => {
          const storage = await local.create({ path: out }, { tempDir: dir, log: quiet });
          const result = await storage.put('bench/stream.bin', createReadStream(source, { highWaterMark: MiB }), {
            size: bytes,
          });
          if (result.size !== bytes || (await stat(join(out, 'bench/stream.bin'))).size !== bytes)
            throw new Error('put stored another size');
        },
      ],
      ...(rcd
        ? [
            ['rclone rcd: operations/uploadfile (streamed multipart)', (out: string) => rcd!.upload(source, out)] as [
              string,
              (out: string) => Promise<unknown>,
            ],
          ]
        : []),
    ];
    const times = new Map<string, number[]>(writers.map(([label]) => [label, []]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < writers.length; i++) {
        const [label, write] = writers[(i + round) % writers.length]!;
        const out = join(dir, 'out');
        await rm(out, { recursive: true, force: true });
        await mkdir(out);
        await flush();
        times.get(label)!.push((await timed(() => write(out))).ms);
      }
    }
    console.log('writes (until the command/put returns; page cache included, no fsync):');
    for (const [label] of writers) summary(`  ${label}`, bytes, times.get(label)!);

    // Reads of one stored copy (from the page cache after the first).
    const out = join(dir, 'out');
    await rm(out, { recursive: true, force: true });
    const storage = await local.create({ path: out }, { tempDir: dir, log: quiet });
    await storage.put('bench/stream.bin', createReadStream(source, { highWaterMark: MiB }), { size: bytes });
    const readers: Array<[string, () => Promise<number>]> = [
      ['plugin get: lsjson --stat + cat, read only', async () => drain(await storage.get('bench/stream.bin'))],
      [
        'plugin get: lsjson --stat + cat, read and SHA-256',
        async () => {
          const hash = createHash('sha256');
          let n = 0;
          for await (const chunk of (await storage.get('bench/stream.bin')) as AsyncIterable<Buffer>) {
            n += chunk.length;
            hash.update(chunk);
          }
          return n;
        },
      ],
      ...(rcd
        ? [['rclone rcd: --rc-serve GET, read only', () => rcd!.download(out)] as [string, () => Promise<number>]]
        : []),
    ];
    console.log('reads:');
    for (const [label, read] of readers) {
      const ms: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const run = await timed(read);
        if (run.value !== bytes) throw new Error(`${label}: read ${run.value} of ${bytes} bytes`);
        ms.push(run.ms);
      }
      summary(`  ${label}`, bytes, ms);
    }

    // Per-operation overhead of one child process per call.
    const small = Buffer.alloc(1024, 7);
    const puts: number[] = [];
    const stats: number[] = [];
    for (let i = 0; i < 10; i++) {
      puts.push((await timed(() => storage.put(`small/${i}`, Readable.from([small]), { size: small.length }))).ms);
      stats.push((await timed(() => storage.stat(`small/${i}`))).ms);
    }
    console.log(
      `per call: 1 KiB put (2 rclone processes) median ${median(puts).toFixed(0)} ms; stat (1 process) median ${median(stats).toFixed(0)} ms`,
    );
  } finally {
    rcd?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchStorageRclone();
