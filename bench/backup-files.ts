import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { createCipheriv, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { MASTER_NODE_FLAGS } from '../core/node-flags.ts';
import { seededRandom } from '../test/helpers/seeded-random.ts';

/**
 * File backup end to end: a generated tree (about 60% compressible text in many small files,
 * 40% random bytes in a few large ones) backed up by a real master process (HTTP API, zstd,
 * age, local_disk), against `tar | zstd -3 -T1 | age` of the same tree. Prints wall times,
 * their ratio, the master's idle and peak RSS, and artifact sizes; asserts nothing.
 *
 *   node bench/backup-files.ts   (1 GiB; BACKPLANE_BENCH_BACKUP_MB to change)
 *
 * The page cache cannot be dropped without root, so the stock pipeline runs once untimed
 * first: both timed runs then read the tree from a warm cache.
 */

export const MiB = 1024 * 1024;
const TERMINAL = new Set(['success', 'partial', 'failed', 'cancelled']);
const ADMIN = { username: 'bench', password: 'bench-password-1' };

// ---- cleanup on failure and on Ctrl-C ------------------------------------------------------

const cleanups = new Set<() => Promise<unknown>>();
let signalsHooked = false;

/** Runs `work`; `cleanup` runs afterwards whatever happens, also when the bench is interrupted. */
export async function withCleanup<T>(cleanup: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  if (!signalsHooked) {
    signalsHooked = true;
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        console.error(`\n${sig}: cleaning up`);
        void Promise.allSettled([...cleanups].reverse().map((c) => c())).then(() => process.exit(130));
      });
    }
  }
  let once: Promise<unknown> | undefined;
  const run = (): Promise<unknown> =>
    (once ??= cleanup().catch((err: unknown) => console.error(`cleanup failed: ${String(err)}`)));
  cleanups.add(run);
  try {
    return await work();
  } finally {
    await run();
    cleanups.delete(run);
  }
}

// ---- formatting ----------------------------------------------------------------------------

export const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;
export const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
export const rate = (bytes: number, ms: number): string => `${(bytes / MiB / (ms / 1000)).toFixed(0)} MiB/s`;
/** Other work on the machine skews every figure: say how busy it was. */
export const machine = (): string =>
  `${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;

// ---- the master as a child process ----------------------------------------------------------

export async function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
}

/** Samples VmRSS every `intervalMs`; `stop()` gives the highest sample and the kernel's high-water mark since `start`. */
export function sampleRss(
  pid: number,
  intervalMs = 100,
): { stop(): Promise<{ peakKiB: number; hwmKiB: number | undefined; samples: number }> } {
  let peak = 0;
  let samples = 0;
  let hwmReset = false;
  // Writing 5 to clear_refs resets VmHWM (Linux >= 4.0): it then measures this window only.
  const reset = writeFile(`/proc/${pid}/clear_refs`, '5').then(
    () => {
      hwmReset = true;
    },
    () => undefined,
  );
  const take = async (): Promise<void> => {
    try {
      const kib = await rssKiB(pid);
      if (kib > peak) peak = kib;
      samples++;
    } catch {
      // the process is gone
    }
  };
  void take();
  const timer = setInterval(() => void take(), intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await reset;
      await take();
      const hwm = hwmReset ? await rssKiB(pid, 'VmHWM').catch(() => NaN) : NaN;
      return { peakKiB: peak, hwmKiB: Number.isNaN(hwm) ? undefined : hwm, samples };
    },
  };
}

const MAIN = fileURLToPath(new URL('../core/main.ts', import.meta.url));

interface ServerProcess {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** `NODE_OPTIONS` for a benchmark's master from BACKPLANE_BENCH_MASTER_NODE_OPTIONS (`--cpu-prof --cpu-prof-dir=...`), when set. */
export function masterNodeOptions(): Record<string, string> {
  const options = process.env.BACKPLANE_BENCH_MASTER_NODE_OPTIONS;
  return options ? { NODE_OPTIONS: options } : {};
}

/**
 * `backplane serve` as a child process on 127.0.0.1, port 0, as test/helpers/server-process.ts
 * starts it, except that a master which does not come up in time is killed rather than left behind.
 */
async function startMasterProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...MASTER_NODE_FLAGS, MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...masterNodeOptions(),
      BACKPLANE_HOST: '127.0.0.1',
      BACKPLANE_PORT: '0',
      BACKPLANE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const tail: string[] = [];
  let buffered = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the master did not start within 30 s:\n${tail.join('\n')}`)),
        30_000,
      );
      const onData = (chunk: Buffer): void => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          tail.push(line);
          if (tail.length > 50) tail.shift();
          const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the master exited early with ${String(code)}:\n${tail.join('\n')}${buffered}`));
      });
    });
    // keep draining its output (the pipes must not fill up) without keeping it
    child.stdout.removeAllListeners('data').resume();
    child.stderr.removeAllListeners('data').resume();
    return { child, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface Master {
  server: ServerProcess;
  pid: number;
  dataDir: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  /** The installation's age recipient (`age1...`), derived by `age-keygen -y` from `<dataDir>/backup.agekey`. */
  recipient(): Promise<string>;
  /**
   * POSTs the run and polls the record until it is terminal; `ms` is request-to-terminal wall
   * time. Polls every 2% of the elapsed time (50 to 500 ms): fine enough for the figure, rare
   * enough that the requests cost the master little.
   */
  runTask(taskId: number): Promise<{ ms: number; record: any }>;
}

/** Starts `backplane serve` on 127.0.0.1 (port 0), creates the admin and a local_disk target; stops it when `work` is done. */
export async function withMaster<T>(
  dataDir: string,
  targetDir: string,
  work: (master: Master, targetId: number) => Promise<T>,
): Promise<T> {
  await mkdir(targetDir, { recursive: true });
  const server = await startMasterProcess({ BACKPLANE_DATA_DIR: dataDir });
  return withCleanup(
    () => server.stop(),
    async () => {
      let token = '';
      const api = async <R>(method: string, path: string, body?: unknown): Promise<R> => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 1000)}`);
        return (JSON.parse(text) as { data: R }).data;
      };
      token = (await api<{ token: string }>('POST', '/api/auth/setup', ADMIN)).token;
      const target = await api<{ id: number }>('POST', '/api/storage-targets', {
        name: 'bench-disk',
        type: 'local_disk',
        config: { basePath: targetDir },
      });
      const master: Master = {
        server,
        pid: server.child.pid!,
        dataDir,
        api,
        async recipient() {
          const out = await capture('age-keygen', ['-y', join(dataDir, 'backup.agekey')]);
          const recipient = out.trim();
          if (!recipient.startsWith('age1')) throw new Error(`age-keygen -y printed ${JSON.stringify(out)}`);
          return recipient;
        },
        async runTask(taskId) {
          const t0 = performance.now();
          const { recordId } = await api<{ recordId: number }>('POST', `/api/backup/tasks/${taskId}/run`);
          for (;;) {
            const record = await api<any>('GET', `/api/backup/records/${recordId}`);
            if (TERMINAL.has(record.status)) return { ms: performance.now() - t0, record };
            await sleep(Math.min(500, Math.max(50, (performance.now() - t0) / 50)));
          }
        },
      };
      return work(master, target.id);
    },
  );
}

// ---- stock tools ------------------------------------------------------------------------------

/** Runs a command and returns its stdout; rejects with its stderr on a non-zero exit. */
export async function capture(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    if (stderr.length < 64 * 1024) stderr += c;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${String(code)}: ${stderr.slice(-1000)}`);
  return stdout;
}

/**
 * CPU seconds a process used so far, its own and its reaped children's (utime, stime, cutime,
 * cstime of /proc/<pid>/stat), for the accounting that tells a CPU-bound ratio on a small
 * machine from a waiting one.
 */
export async function cpuSeconds(pid: number | 'self'): Promise<{ own: number; children: number }> {
  return statCpuSeconds(await readFile(`/proc/${pid}/stat`, 'utf8'));
}

/** The CPU seconds in the text of a /proc/<pid>/stat file (see cpuSeconds). */
export function statCpuSeconds(stat: string): { own: number; children: number } {
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number); // fields from 3 (state) on
  const tick = 100; // USER_HZ: what /proc reports in on Linux, whatever the kernel's HZ
  return { own: (fields[11]! + fields[12]!) / tick, children: (fields[13]! + fields[14]!) / tick };
}

/**
 * CPU seconds of each of a process's live threads, summed by thread name (MainThread,
 * libuv-worker, V8Worker, ...): where a master's CPU goes that a --cpu-prof of its main thread
 * does not show (file-system calls in the thread pool, concurrent GC).
 */
export async function threadCpu(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const [comm, stat] = await Promise.all([
      readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8').catch(() => ''),
      readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => ''),
    ]);
    if (!stat) continue;
    const name = comm.trim() || '?';
    byName.set(name, (byName.get(name) ?? 0) + statCpuSeconds(stat).own);
  }
  return byName;
}

/** What each thread name used between two threadCpu readings, largest first ("other": threads gone meanwhile). */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>, total: number): string {
  const rows = [...after]
    .map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const)
    .filter(([, s]) => s >= 0.005);
  const other = total - rows.reduce((sum, [, s]) => sum + s, 0);
  if (other >= 0.005) rows.push(['other', other]);
  return rows
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(2)}`)
    .join(', ');
}

/** A shell pipeline under bash with pipefail; arguments arrive as $1, $2, ... (never interpolated). Returns its wall time. */
export async function timeShell(script: string, args: string[], env?: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  await capture('bash', ['-o', 'pipefail', '-c', script, 'bench', ...args], env);
  return performance.now() - t0;
}

// ---- the tree ---------------------------------------------------------------------------------

const SYLLABLES = [
  'ka',
  'to',
  'ri',
  'ne',
  'mo',
  'sa',
  'lu',
  'pe',
  'di',
  'go',
  'ba',
  'xi',
  'ver',
  'con',
  'tra',
  'ment',
  'ion',
  'al',
  'st',
  'qu',
  'ple',
  'ark',
  'el',
  'or',
];
const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];

/** Text in three styles (log, CSV, prose) from a 3000-word vocabulary with random numbers and ids: compresses about 3-4x with zstd -3. */
export function textGenerator(seed: number): (bytes: number) => string {
  const rnd = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const words: string[] = [];
  for (let i = 0; i < 3000; i++) {
    let w = '';
    const n = 1 + Math.floor(rnd() * 4);
    for (let j = 0; j < n; j++) w += pick(SYLLABLES);
    words.push(w);
  }
  // Zipf-like: frequent words are more frequent, as in real text.
  const word = (): string => words[Math.floor(words.length * rnd() ** 2.5)]!;
  const hex = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rnd() * 16)];
    return s;
  };
  let clock = Date.UTC(2024, 0, 1);
  const line = (style: number): string => {
    if (style === 0) {
      clock += Math.floor(rnd() * 5000);
      let msg = '';
      const n = 3 + Math.floor(rnd() * 10);
      for (let i = 0; i < n; i++) msg += `${word()} `;
      return `${new Date(clock).toISOString()} ${pick(LEVELS)} [${word()}-${Math.floor(rnd() * 32)}] ${msg}id=${hex(8)} took=${Math.floor(rnd() * 2000)}ms\n`;
    }
    if (style === 1)
      return `${Math.floor(rnd() * 1e6)},${word()},${word()} ${word()},${(rnd() * 1000).toFixed(2)},${hex(6)},${rnd() < 0.5 ? 'true' : 'false'}\n`;
    let sentence = word();
    const n = 6 + Math.floor(rnd() * 18);
    for (let i = 0; i < n; i++) sentence += (rnd() < 0.08 ? ', ' : ' ') + word();
    return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.${rnd() < 0.2 ? '\n\n' : ' '}`;
  };
  return (bytes) => {
    const style = Math.floor(rnd() * 3);
    const parts: string[] = [];
    let size = 0;
    if (style === 1) {
      parts.push('id,name,label,amount,ref,flag\n');
      size += 30;
    }
    while (size < bytes) {
      const l = line(style);
      parts.push(l);
      size += l.length;
    }
    return parts.join('').slice(0, bytes);
  };
}

/** A file of `bytes` pseudo-random bytes (AES-CTR keystream): incompressible. */
async function writeRandom(path: string, bytes: number): Promise<void> {
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

export interface Tree {
  files: number;
  dirs: number;
  bytes: number;
  textBytes: number;
  randomBytes: number;
}

/**
 * About `bytes` in `root`: 60% text in small files (about 50,000 per GiB, 1 to 24 KiB, in
 * folders nested 2 to 4 deep, 20 to 60 per folder) and 40% random bytes in 4 large files.
 */
export async function generateTree(root: string, bytes: number, seed = 1): Promise<Tree> {
  const rnd = seededRandom(seed ^ 0x5eed);
  const text = textGenerator(seed);
  const textTarget = Math.round(bytes * 0.6);
  const fileCount = Math.max(100, Math.round((50_000 * bytes) / (1024 * MiB)));
  const mean = textTarget / fileCount;
  const dirsMade = new Set<string>();
  let textBytes = 0;
  let files = 0;
  let folder = '';
  let leftInFolder = 0;
  let folderNo = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < fileCount; i++) {
    if (leftInFolder === 0) {
      const depth = 2 + Math.floor(rnd() * 3);
      const parts = ['text'];
      let n = folderNo++;
      for (let d = 0; d < depth; d++) {
        parts.push(`${['src', 'logs', 'data', 'docs', 'var', 'lib'][n % 6]}-${n % 7}`);
        n = Math.floor(n / 6);
      }
      folder = join(root, ...parts, `f${folderNo}`);
      await mkdir(folder, { recursive: true });
      for (let p = folder; p.length > root.length; p = join(p, '..')) dirsMade.add(p);
      leftInFolder = 20 + Math.floor(rnd() * 41);
    }
    leftInFolder--;
    // sizes spread around the mean (0.1x to 1.9x), the last file tops the total up
    const size =
      i === fileCount - 1 ? Math.max(1, textTarget - textBytes) : Math.max(64, Math.round(mean * (0.1 + 1.8 * rnd())));
    const ext = ['.log', '.csv', '.txt', '.md'][Math.floor(rnd() * 4)]!;
    pending.push(writeFile(join(folder, `file-${i}${ext}`), text(size)));
    textBytes += size;
    files++;
    if (pending.length >= 32) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  const randomTarget = bytes - textTarget;
  const bigDir = join(root, 'blobs');
  await mkdir(bigDir, { recursive: true });
  dirsMade.add(bigDir);
  const shares = [0.4, 0.3, 0.2, 0.1];
  let randomBytesWritten = 0;
  for (const [i, share] of shares.entries()) {
    const size = i === shares.length - 1 ? randomTarget - randomBytesWritten : Math.round(randomTarget * share);
    await writeRandom(join(bigDir, `blob-${i}.bin`), size);
    randomBytesWritten += size;
    files++;
  }
  return {
    files,
    dirs: dirsMade.size,
    bytes: textBytes + randomBytesWritten,
    textBytes,
    randomBytes: randomBytesWritten,
  };
}

// ---- one size ---------------------------------------------------------------------------------

interface SizeResult {
  label: string;
  tree: Tree;
  stockMs: number;
  stockSyncMs: number;
  stockSize: number;
  backplaneMs: number;
  recordSeconds: number;
  backplaneSize: number;
  idleKiB: number;
  peakKiB: number;
  hwmKiB: number | undefined;
  stockRestoreMs: number;
  restoreMs: number;
  restorePeakKiB: number;
  /** CPU seconds (user + system) of the stock pipelines, and of the master and the programs it ran. */
  stockCpu: number;
  backupCpu: { master: number; programs: number };
  stockRestoreCpu: number;
  restoreCpu: { master: number; programs: number };
  /** The master's CPU seconds by thread name (threadCpuDelta). */
  backupThreads: string;
  restoreThreads: string;
  /** The gzip round (full-size tree only). */
  gzip:
    | {
        stockMs: number;
        stockCpu: number;
        ms: number;
        cpu: { master: number; programs: number };
        threads: string;
        peakKiB: number;
      }
    | undefined;
}

async function benchOneSize(dir: string, label: string, bytes: number, withGzip: boolean): Promise<SizeResult> {
  const root = join(dir, `tree-${label}`);
  const t0 = performance.now();
  const tree = await generateTree(root, bytes);
  console.log(
    `  [${label}] generated ${tree.files} files in ${tree.dirs} folders, ` +
      `${mib(tree.bytes)} (${mib(tree.textBytes)} text, ${mib(tree.randomBytes)} random) in ${secs(performance.now() - t0)}`,
  );
  try {
    return await withMaster(join(dir, `data-${label}`), join(dir, `target-${label}`), async (master, targetId) => {
      const recipient = await master.recipient();
      const stockOut = join(dir, `stock-${label}.tar.zst.age`);
      const stock = 'tar -c -f - -C / -- "$1" | zstd -3 -T1 -q -c | age -r "$2" > "$3"';
      const rel = root.replace(/^\/+/, '');
      await timeShell(stock, [rel, recipient, stockOut]); // warm-up: fills the page cache
      await rm(stockOut, { force: true });
      const cpu0 = await cpuSeconds('self');
      const stockMs = await timeShell(stock, [rel, recipient, stockOut]);
      const stockCpu = (await cpuSeconds('self')).children - cpu0.children;
      const stockSyncMs = await timeShell('sync -- "$1"', [stockOut]);
      const stockSize = (await stat(stockOut)).size;
      await rm(stockOut, { force: true });

      const task = await master.api<{ id: number }>('POST', '/api/backup/tasks', {
        name: `bench-files-${label}`,
        type: 'file',
        sourcePaths: [root],
        storageTargetIds: [targetId],
        compression: 'zstd',
        encrypt: true,
      });
      await sleep(2000);
      await timeShell('sync', []);
      const idleKiB = await rssKiB(master.pid);
      const sampler = sampleRss(master.pid);
      const mcpu0 = await cpuSeconds(master.pid);
      const threads0 = await threadCpu(master.pid);
      const run = await master.runTask(task.id).catch(async (err: unknown) => {
        await sampler.stop();
        throw err;
      });
      const mcpu1 = await cpuSeconds(master.pid);
      const backupCpu = { master: mcpu1.own - mcpu0.own, programs: mcpu1.children - mcpu0.children };
      const backupThreads = threadCpuDelta(threads0, await threadCpu(master.pid), backupCpu.master);
      const rss = await sampler.stop();
      if (run.record.status !== 'success')
        throw new Error(`the backup ended ${run.record.status}: ${run.record.errorMessage}`);

      // Restore of the same artifact: stock age -d | zstd -d | tar -x against the API restore into a folder.
      const artifact = join(dir, `target-${label}`, run.record.storagePath);
      const stockDir = join(dir, `restore-stock-${label}`);
      await mkdir(stockDir, { recursive: true });
      // Dirty pages of the previous step are written back first: otherwise their writeback (and
      // the kernel time it costs) lands on whichever run comes next.
      await timeShell('sync', []);
      const rcpu0 = await cpuSeconds('self');
      const stockRestoreMs = await timeShell('age -d -i "$1" "$2" | zstd -d -q | tar -x -f - -C "$3"', [
        join(master.dataDir, 'backup.agekey'),
        artifact,
        stockDir,
      ]);
      const stockRestoreCpu = (await cpuSeconds('self')).children - rcpu0.children;
      await rm(stockDir, { recursive: true, force: true });
      await timeShell('sync', []);
      const restoreDir = join(dir, `restore-backplane-${label}`);
      const restoreSampler = sampleRss(master.pid);
      const r0 = performance.now();
      const rmcpu0 = await cpuSeconds(master.pid);
      const rthreads0 = await threadCpu(master.pid);
      const restore = await master.api<{ id: number }>('POST', `/api/backup/records/${run.record.id}/restore`, {
        targetPath: restoreDir,
      });
      let restored: any;
      for (;;) {
        restored = await master.api<any>('GET', `/api/restore/records/${restore.id}`);
        if (TERMINAL.has(restored.status)) break;
        await sleep(Math.min(500, Math.max(50, (performance.now() - r0) / 50)));
      }
      const restoreMs = performance.now() - r0;
      const rmcpu1 = await cpuSeconds(master.pid);
      const restoreCpu = { master: rmcpu1.own - rmcpu0.own, programs: rmcpu1.children - rmcpu0.children };
      const restoreThreads = threadCpuDelta(rthreads0, await threadCpu(master.pid), restoreCpu.master);
      const restoreRss = await restoreSampler.stop();
      await rm(restoreDir, { recursive: true, force: true });
      if (restored.status !== 'success')
        throw new Error(`the restore ended ${restored.status}: ${restored.errorMessage}`);
      if (process.env.BACKPLANE_BENCH_SHOW_LOGS) console.log(restored.logContent, run.record.logContent ?? '');

      // The same tree with gzip (level 6, in-process zlib) against tar | gzip -6 | age.
      let gzip: SizeResult['gzip'];
      if (withGzip) {
        const stockGzip = 'tar -c -f - -C / -- "$1" | gzip -6 -c | age -r "$2" > "$3"';
        await timeShell('sync', []);
        const gcpu0 = await cpuSeconds('self');
        const stockMs = await timeShell(stockGzip, [rel, recipient, stockOut]);
        const stockCpu = (await cpuSeconds('self')).children - gcpu0.children;
        await rm(stockOut, { force: true });
        const gzipTask = await master.api<{ id: number }>('POST', '/api/backup/tasks', {
          name: `bench-files-${label}-gzip`,
          type: 'file',
          sourcePaths: [root],
          storageTargetIds: [targetId],
          compression: 'gzip',
          encrypt: true,
        });
        await timeShell('sync', []);
        const gmcpu0 = await cpuSeconds(master.pid);
        const gthreads0 = await threadCpu(master.pid);
        const gzipSampler = sampleRss(master.pid);
        const gzipRun = await master.runTask(gzipTask.id).catch(async (err: unknown) => {
          await gzipSampler.stop();
          throw err;
        });
        const gzipRss = await gzipSampler.stop();
        const gmcpu1 = await cpuSeconds(master.pid);
        const cpu = { master: gmcpu1.own - gmcpu0.own, programs: gmcpu1.children - gmcpu0.children };
        if (gzipRun.record.status !== 'success')
          throw new Error(`the gzip backup ended ${gzipRun.record.status}: ${gzipRun.record.errorMessage}`);
        gzip = {
          stockMs,
          stockCpu,
          ms: gzipRun.ms,
          cpu,
          threads: threadCpuDelta(gthreads0, await threadCpu(master.pid), cpu.master),
          peakKiB: gzipRss.peakKiB,
        };
      }
      return {
        label,
        tree,
        stockMs,
        stockSyncMs,
        stockSize,
        backplaneMs: run.ms,
        recordSeconds: run.record.durationSeconds,
        backplaneSize: run.record.fileSize,
        idleKiB,
        peakKiB: rss.peakKiB,
        hwmKiB: rss.hwmKiB,
        stockRestoreMs,
        restoreMs,
        restorePeakKiB: restoreRss.peakKiB,
        stockCpu,
        backupCpu,
        stockRestoreCpu,
        restoreCpu,
        backupThreads,
        restoreThreads,
        gzip,
      };
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function report(r: SizeResult): void {
  const ratio = r.backplaneMs / r.stockMs;
  console.log(`  [${r.label}] ${mib(r.tree.bytes)}, ${r.tree.files} files:`);
  console.log(
    `    stock tar | zstd -3 -T1 | age   ${secs(r.stockMs)} (${rate(r.tree.bytes, r.stockMs)}), + fsync of the output ${secs(r.stockSyncMs)}`,
  );
  console.log(
    `    backplane (API run to success)  ${secs(r.backplaneMs)} (${rate(r.tree.bytes, r.backplaneMs)}; record duration ${r.recordSeconds.toFixed(1)} s)`,
  );
  console.log(
    `    ratio backplane/stock           ${ratio.toFixed(2)} (vs stock + fsync: ${(r.backplaneMs / (r.stockMs + r.stockSyncMs)).toFixed(2)})`,
  );
  console.log(
    `    master RSS                      idle ${(r.idleKiB / 1024).toFixed(1)} MiB, ` +
      `peak ${(r.peakKiB / 1024).toFixed(1)} MiB (100 ms samples)` +
      `${r.hwmKiB === undefined ? '' : `, VmHWM ${(r.hwmKiB / 1024).toFixed(1)} MiB`}`,
  );
  console.log(`    artifact                        backplane ${mib(r.backplaneSize)}, stock ${mib(r.stockSize)}`);
  const cores = cpus().length;
  console.log(
    `    CPU seconds                     stock ${r.stockCpu.toFixed(2)}; ` +
      `backplane ${(r.backupCpu.master + r.backupCpu.programs).toFixed(2)} ` +
      `(master ${r.backupCpu.master.toFixed(2)}, tar and zstd ${r.backupCpu.programs.toFixed(2)}); ` +
      `on ${cores} CPUs no run can take less than CPU/${cores}`,
  );
  console.log(`    master CPU by thread            ${r.backupThreads}`);
  console.log(
    `    goals (issue 17)                ratio <= 1.10: ${verdict(ratio <= 1.1)}; peak RSS <= 150 MiB: ${verdict(r.peakKiB <= 150 * 1024)}`,
  );
  console.log(
    `    restore: stock age -d | zstd -d | tar -x  ${secs(r.stockRestoreMs)} (${rate(r.tree.bytes, r.stockRestoreMs)}), CPU ${r.stockRestoreCpu.toFixed(2)} s`,
  );
  console.log(
    `    restore: backplane (API: one read into a staging folder, checked, then moved into place)  ` +
      `${secs(r.restoreMs)} (${rate(r.tree.bytes, r.restoreMs)}); ` +
      `ratio ${(r.restoreMs / r.stockRestoreMs).toFixed(2)}; master peak RSS ${(r.restorePeakKiB / 1024).toFixed(1)} MiB; ` +
      `CPU ${(r.restoreCpu.master + r.restoreCpu.programs).toFixed(2)} s ` +
      `(master ${r.restoreCpu.master.toFixed(2)}, tar and zstd ${r.restoreCpu.programs.toFixed(2)})`,
  );
  console.log(`    restore: master CPU by thread   ${r.restoreThreads}`);
  console.log(
    `    restore goals (issue 17)        ratio <= 1.25: ${verdict(r.restoreMs / r.stockRestoreMs <= 1.25)}; ` +
      `peak RSS <= 150 MiB: ${verdict(r.restorePeakKiB <= 150 * 1024)}`,
  );
  const g = r.gzip;
  if (!g) return;
  console.log(
    `    gzip: stock tar | gzip -6 | age ${secs(g.stockMs)} (CPU ${g.stockCpu.toFixed(2)} s); ` +
      `backplane ${secs(g.ms)} (CPU ${(g.cpu.master + g.cpu.programs).toFixed(2)} s: ` +
      `master ${g.cpu.master.toFixed(2)}, tar ${g.cpu.programs.toFixed(2)}); ` +
      `ratio ${(g.ms / g.stockMs).toFixed(2)} (goal <= 1.10: ${verdict(g.ms / g.stockMs <= 1.1)}); ` +
      `master peak RSS ${(g.peakKiB / 1024).toFixed(1)} MiB`,
  );
  console.log(`    gzip: master CPU by thread      ${g.threads}`);
}

export function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

/**
 * A tree of `bytes` (BACKPLANE_BENCH_BACKUP_MB, default 1024) and, first, one of a quarter of
 * that, each backed up by a fresh master, so the two peak RSS figures can be compared.
 */
export async function benchBackupFiles(options: { bytes?: number } = {}): Promise<void> {
  const bytes = options.bytes ?? Number(process.env.BACKPLANE_BENCH_BACKUP_MB ?? 1024) * MiB;
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-files-'));
  await withCleanup(
    () => rm(dir, { recursive: true, force: true }),
    async () => {
      console.log(
        `file task (zstd, age) to local_disk vs tar | zstd -3 -T1 | age; page cache warmed by one untimed stock run per tree (${machine()})`,
      );
      const small = await benchOneSize(dir, 'quarter', Math.round(bytes / 4), false);
      report(small);
      const big = await benchOneSize(dir, 'full', bytes, true);
      report(big);
      console.log(
        `  peak master RSS by tree size: ${mib(small.tree.bytes)} -> ${(small.peakKiB / 1024).toFixed(1)} MiB, ` +
          `${mib(big.tree.bytes)} -> ${(big.peakKiB / 1024).toFixed(1)} MiB`,
      );
    },
  );
}

if (import.meta.main) await benchBackupFiles();
