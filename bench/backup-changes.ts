import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  capture,
  cpuSeconds,
  machine,
  type Master,
  MiB,
  mib,
  secs,
  timeShell,
  verdict,
  withCleanup,
  withMaster,
} from './backup-files.ts';
import { applyChanges, type ChangeSet, type ChangesTree, fileBytes, generateChangesTree } from './changes-tree.ts';

/**
 * Backups that store only what changed: a tree of BACKPLANE_BENCH_CHANGES_MB MiB (default 1024,
 * about 5,000 files, mostly random bytes) is backed up once by the stock `restic backup` into a
 * local repository and by a real master (a local_disk target) in `repository` mode (restic
 * through the REST bridge) and in `differential` mode (GNU tar --listed-incremental). Then, in
 * each of ROUNDS rounds, the tree is changed (1% of its files rewritten, 10 deleted, 10 added,
 * a new seed each round) and backed up again by stock restic and by the repository task, in
 * turns (stock first in odd rounds, the master first in even ones), so each pair sees the same
 * bytes and the same machine load; the ratio printed is the median of the rounds'. The
 * differential task runs in the first round, against its full. Prints figures and ratios;
 * asserts nothing.
 *
 *   node bench/backup-changes.ts
 *
 * Everything reads a warm page cache: the first backups have just read the tree, and the change
 * was just written. `sync` runs before each timed run so writeback is not charged to it.
 */

const ROUNDS = 3;

interface Run {
  ms: number;
  /** CPU seconds: restic (stock), or the master and the programs it ran. */
  cpu: number;
  /** restic's data_added (before compression), or the record's fileSize. */
  stored: number;
  /** Growth of the repository's files on disk (repository runs). */
  growth: number;
  /** The master process's own CPU seconds, its children excluded (Backplane's runs). */
  own?: number;
}

interface Round {
  change: ChangeSet;
  stock: Run;
  repository: Run;
}

interface Figures {
  tree: ChangesTree;
  first: { stock: Run; repository: Run; differential: Run };
  rounds: Round[];
  differential: Run & { changedZstd: number };
}

/** `tar -c` of the changed files through `zstd -3 -T1`: the floor a differential is compared with. */
async function changedZstd(root: string, change: ChangeSet, listFile: string): Promise<number> {
  await writeFile(listFile, [...change.modified, ...change.added].map((n) => `${n}\0`).join(''));
  const out = await capture('bash', [
    '-o',
    'pipefail',
    '-c',
    'tar -c -f - -C "$1" --null -T "$2" | zstd -3 -T1 -q -c | wc -c',
    'bench',
    root,
    listFile,
  ]);
  return Number(out.trim());
}

/** The tree after a change: deleted files gone, added ones there, so the next change picks from what exists. */
function changed(tree: ChangesTree, change: ChangeSet): ChangesTree {
  const gone = new Set(change.deleted);
  return { ...tree, files: [...tree.files.filter((f) => !gone.has(f)), ...change.added] };
}

// ---- stock restic ----------------------------------------------------------------------------

/** The stock restic on a local repository: `backup` runs timed, with the growth of the repository. */
async function stockRestic(dir: string, root: string): Promise<() => Promise<Run>> {
  const repo = join(dir, 'stock-repo');
  const password = join(dir, 'stock-password');
  // mode 0600 as restic's documentation asks of a password file
  await writeFile(password, randomBytes(32).toString('hex'), { mode: 0o600 });
  const restic = (...args: string[]): Promise<string> =>
    capture('restic', ['-r', repo, '--password-file', password, '--cache-dir', join(dir, 'stock-cache'), ...args]);
  await restic('init');
  return async () => {
    const before = await fileBytes(repo).catch(() => 0);
    const cpu0 = await cpuSeconds('self');
    const t0 = performance.now();
    const stored = summary(await restic('backup', '--json', '--', root)).data_added;
    const ms = performance.now() - t0;
    const cpu = (await cpuSeconds('self')).children - cpu0.children;
    return { ms, cpu, stored, growth: (await fileBytes(repo)) - before };
  };
}

/** The summary line of `restic backup --json` (the other lines are status). */
function summary(out: string): { data_added: number } {
  for (const line of out.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as { message_type?: string; data_added?: number };
    if (parsed.message_type === 'summary') return { data_added: Number(parsed.data_added) };
  }
  throw new Error(`restic backup printed no summary: ${out.slice(-500)}`);
}

// ---- Backplane -------------------------------------------------------------------------------

async function runOk(master: Master, taskId: number, kind: string): Promise<{ ms: number; record: any }> {
  const run = await master.runTask(taskId);
  if (run.record.status !== 'success')
    throw new Error(`the ${kind} run ended ${run.record.status}: ${run.record.errorMessage}`);
  if (run.record.backupKind !== kind) throw new Error(`expected a ${kind} run, got ${run.record.backupKind}`);
  if (process.env.BACKPLANE_BENCH_SHOW_LOGS) console.log(run.record.logContent ?? '');
  return run;
}

/** A task of the master on `root` in this mode: its runs timed, with the growth of its repository. */
async function backplaneTask(
  master: Master,
  targetId: number,
  targetDir: string,
  root: string,
  mode: 'differential' | 'repository',
): Promise<(kind: string) => Promise<Run>> {
  const task = await master.api<{ id: number }>('POST', '/api/backup/tasks', {
    name: `bench-changes-${mode}`,
    type: 'file',
    sourcePaths: [root],
    storageTargetIds: [targetId],
    compression: 'zstd',
    encrypt: true,
    backupMode: mode,
  });
  // a repository run's copies are the repository's folder on the target
  let repo: string | undefined;
  return async (kind) => {
    const before = repo ? await fileBytes(repo) : 0;
    const cpu0 = await cpuSeconds(master.pid);
    const run = await runOk(master, task.id, kind);
    const cpu1 = await cpuSeconds(master.pid);
    if (mode === 'repository') repo ??= join(targetDir, run.record.storagePath as string);
    const growth = repo ? (await fileBytes(repo)) - before : 0;
    return {
      ms: run.ms,
      cpu: cpu1.own - cpu0.own + cpu1.children - cpu0.children,
      own: cpu1.own - cpu0.own,
      stored: run.record.fileSize,
      growth,
    };
  };
}

// ---- report ------------------------------------------------------------------------------------

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function report(f: Figures): void {
  const { tree, first, rounds, differential: diff } = f;
  const change = rounds[0]!.change;
  console.log(
    `  tree: ${tree.files.length} files, ${mib(tree.bytes)} (${mib(tree.textBytes)} text); each change: ` +
      `${change.modified.length} rewritten, ${change.deleted.length} deleted, ${change.added.length} added ` +
      `(${mib(change.bytes)} written in the first)`,
  );
  console.log(
    `  first runs: stock restic ${secs(first.stock.ms)}, backplane repository ${secs(first.repository.ms)}, ` +
      `backplane differential (a full) ${secs(first.differential.ms)}`,
  );
  for (const [i, r] of rounds.entries())
    console.log(
      `  round ${i + 1}: stock restic ${secs(r.stock.ms)} (CPU ${r.stock.cpu.toFixed(2)} s, added ` +
        `${mib(r.stock.stored)}, grew ${mib(r.stock.growth)}); backplane repository ${secs(r.repository.ms)} ` +
        `(CPU ${r.repository.cpu.toFixed(2)} s, the master's own ${r.repository.own?.toFixed(2)} s, ` +
        `added ${mib(r.repository.stored)}, grew ${mib(r.repository.growth)}); ` +
        `ratio ${(r.repository.ms / r.stock.ms).toFixed(2)}`,
    );
  console.log(
    `  differential after the first change: ${secs(diff.ms)}, CPU ${diff.cpu.toFixed(2)} s; stored ` +
      `${mib(diff.stored)}; changed files tar | zstd -3 ${mib(diff.changedZstd)}`,
  );
  const wall = median(rounds.map((r) => r.repository.ms / r.stock.ms));
  const growth = median(rounds.map((r) => r.repository.growth / r.stock.growth));
  const goals: [string, string, number, number][] = [
    ['repository 2nd run wall <= 1.2x stock', `median of ${rounds.length} rounds`, wall, 1.2],
    ['repository growth <= 1.2x stock growth', `median of ${rounds.length} rounds`, growth, 1.2],
    [
      'differential <= 1.5x changed, zstd -3',
      `${mib(diff.stored)} vs ${mib(diff.changedZstd)}`,
      diff.stored / diff.changedZstd,
      1.5,
    ],
  ];
  console.log(`  ${'goal'.padEnd(42)}${'measured'.padEnd(28)}${'ratio'.padEnd(8)}verdict`);
  for (const [goal, measured, ratio, limit] of goals)
    console.log(`  ${goal.padEnd(42)}${measured.padEnd(28)}${ratio.toFixed(2).padEnd(8)}${verdict(ratio <= limit)}`);
}

export async function benchBackupChanges(options: { bytes?: number } = {}): Promise<void> {
  const bytes = options.bytes ?? Number(process.env.BACKPLANE_BENCH_CHANGES_MB ?? 1024) * MiB;
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-changes-'));
  await withCleanup(
    () => rm(dir, { recursive: true, force: true }),
    async () => {
      console.log(`second backups after 1% changes: stock restic, repository and differential modes (${machine()})`);
      const root = join(dir, 'tree');
      const t0 = performance.now();
      let tree = await generateChangesTree(root, bytes);
      const generated = tree;
      console.log(`  generated ${tree.files.length} files, ${mib(tree.bytes)} in ${secs(performance.now() - t0)}`);
      await timeShell('sync', []);
      const stock = await stockRestic(dir, root);
      const targetDir = join(dir, 'target');
      const figures = await withMaster(join(dir, 'data'), targetDir, async (master, targetId) => {
        const repository = await backplaneTask(master, targetId, targetDir, root, 'repository');
        const differential = await backplaneTask(master, targetId, targetDir, root, 'differential');
        const first = {
          stock: await stock(),
          repository: await repository('repository'),
          differential: await differential('full'),
        };
        const rounds: Round[] = [];
        let diff: (Run & { changedZstd: number }) | undefined;
        for (let i = 0; i < ROUNDS; i++) {
          const change = await applyChanges(root, tree, i + 2);
          tree = changed(tree, change);
          await timeShell('sync', []);
          if (i === 0) {
            const zstd = await changedZstd(root, change, join(dir, 'changed.list'));
            diff = { ...(await differential('differential')), changedZstd: zstd };
          }
          const pair =
            i % 2 === 0
              ? { stock: await stock(), repository: await repository('repository') }
              : { repository: await repository('repository'), stock: await stock() };
          rounds.push({ change, ...pair });
        }
        return { first, rounds, differential: diff! };
      });
      report({ tree: generated, ...figures });
    },
  );
}

if (import.meta.main) await benchBackupChanges();
