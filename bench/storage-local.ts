import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { localDiskType } from '../plugins/storage-local/local-disk.ts';

const MiB = 1024 * 1024;

const rate = (bytes: number, ms: number) =>
  `${(bytes / MiB / (ms / 1000)).toFixed(0)} MiB/s (${(ms / 1000).toFixed(2)} s)`;

async function writeSource(path: string, bytes: number): Promise<void> {
  const cipher = createCipheriv('aes-256-ctr', randomBytes(32), randomBytes(16));
  const out = createWriteStream(path);
  const chunk = Buffer.alloc(4 * MiB);
  for (let left = bytes; left > 0; left -= chunk.length) {
    if (!out.write(cipher.update(left >= chunk.length ? chunk : chunk.subarray(0, left)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function run(cmd: string, args: string[]): Promise<void> {
  const child = spawn(cmd, args, { stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${cmd} exited ${code}`);
}

/**
 * local_disk throughput: one stream of `bytes` (1 GiB; BACKPLANE_BENCH_LOCAL_MB for less)
 * through the plugin's put (temp file, fsync, rename) against `cp` + `sync` of the same file.
 */
export async function benchStorageLocal(options: { bytes?: number } = {}): Promise<void> {
  const bytes = options.bytes ?? Number(process.env.BACKPLANE_BENCH_LOCAL_MB ?? 1024) * MiB;
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-local-'));
  try {
    const source = join(dir, 'source.bin');
    await writeSource(source, bytes);
    const base = join(dir, 'target');
    await mkdir(base);

    let t0 = performance.now();
    await run('cp', [source, join(dir, 'cp-copy.bin')]);
    await run('sync', []);
    const cpMs = performance.now() - t0;

    const storage = await localDiskType.create(
      { basePath: base },
      { tempDir: dir, log: { info() {}, warn() {}, error() {} } },
    );
    t0 = performance.now();
    await storage.put('bench/object.bin', createReadStream(source, { highWaterMark: MiB }), { size: bytes });
    const putMs = performance.now() - t0;

    t0 = performance.now();
    const body = await storage.get('bench/object.bin');
    for await (const _chunk of body) {
      /* drain */
    }
    const getMs = performance.now() - t0;

    console.log(`local_disk, ${bytes / MiB} MiB:`);
    console.log(`  cp + sync            ${rate(bytes, cpMs)}`);
    console.log(`  plugin put (fsync)   ${rate(bytes, putMs)}`);
    console.log(`  plugin get           ${rate(bytes, getMs)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchStorageLocal();
