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
 * about 5,000 files, mostly random bytes) is backed up once, changed (1% of the files rewritten,
 * 10 deleted, 10 added), and backed up again. The second run is what is measured: stock
 * `restic backup` into a local repository, then a real master with a local_disk target in
 * `differential` mode (GNU tar --listed-incremental) and in `repository` mode (restic through
 * the REST bridge). Each run starts from a fresh copy of the same tree and applies the same
 * seeded change, so all three see identical bytes. Prints figures and ratios; asserts nothing.
 *
 *   node bench/backup-changes.ts
 *
 * Everything reads a warm page cache: the first backup of each copy has just read the tree, and
 * the change was just written. `sync` runs before each timed run so writeback is not charged to it.
 */

interface SecondRun {
  /** The first run: wall time, and what it stored. */
  firstMs: number;
  firstStored: number;
  ms: number;
  /** CPU seconds of the second run: restic (stock), or the master and the programs it ran. */
  cpu: number;
  /** restic's data_added (before compression), or the record's fileSize. */
  stored: number;
  /** Growth of the repository's files on disk (repository runs). */
  growth: number;
}

interface Figures {
  tree: ChangesTree;
  change: ChangeSet;
  stock: SecondRun;
  repository: SecondRun;
  differential: SecondRun & { changedZstd: number };
}

/** A fresh copy of the generated tree at `root`, so each mode starts from the same bytes and times. */
async function freshTree(base: string, root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
  await timeShell('cp -a -- "$1" "$2" && sync', [base, root]);
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

// ---- stock restic ----------------------------------------------------------------------------

async function stockRestic(dir: string, base: string, root: string, tree: ChangesTree) {
  await freshTree(base, root);
  const repo = join(dir, 'stock-repo');
  const password = join(dir, 'stock-password');
  // mode 0600 as restic's documentation asks of a password file
  await writeFile(password, randomBytes(32).toString('hex'), { mode: 0o600 });
  const restic = (...args: string[]): Promise<string> =>
    capture('restic', ['-r', repo, '--password-file', password, '--cache-dir', join(dir, 'stock-cache'), ...args]);
  await restic('init');
  const t0 = performance.now();
  const first = summary(await restic('backup', '--json', '--', root));
  const firstMs = performance.now() - t0;
  const change = await applyChanges(root, tree);
  await timeShell('sync', []);
  const before = await fileBytes(repo);
  const cpu0 = await cpuSeconds('self');
  const t1 = performance.now();
  const second = summary(await restic('backup', '--json', '--', root));
  const ms = performance.now() - t1;
  const cpu = (await cpuSeconds('self')).children - cpu0.children;
  const growth = (await fileBytes(repo)) - before;
  await rm(repo, { recursive: true, force: true });
  const run: SecondRun = { firstMs, firstStored: first.data_added, ms, cpu, stored: second.data_added, growth };
  return { change, run };
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

async function backplaneMode(
  master: Master,
  targetId: number,
  targetDir: string,
  mode: 'differential' | 'repository',
  paths: { dir: string; base: string; root: string; tree: ChangesTree },
): Promise<SecondRun & { changedZstd: number }> {
  const { dir, base, root, tree } = paths;
  await freshTree(base, root);
  const task = await master.api<{ id: number }>('POST', '/api/backup/tasks', {
    name: `bench-changes-${mode}`,
    type: 'file',
    sourcePaths: [root],
    storageTargetIds: [targetId],
    compression: 'zstd',
    encrypt: true,
    backupMode: mode,
  });
  const first = await runOk(master, task.id, mode === 'differential' ? 'full' : 'repository');
  const change = await applyChanges(root, tree);
  const changed = mode === 'differential' ? await changedZstd(root, change, join(dir, 'changed.list')) : 0;
  await timeShell('sync', []);
  // a repository run's copies are the repository's folder on the target
  const repo = mode === 'repository' ? join(targetDir, first.record.storagePath as string) : undefined;
  const before = repo ? await fileBytes(repo) : 0;
  const cpu0 = await cpuSeconds(master.pid);
  const second = await runOk(master, task.id, mode);
  const cpu1 = await cpuSeconds(master.pid);
  const growth = repo ? (await fileBytes(repo)) - before : 0;
  return {
    firstMs: first.ms,
    firstStored: first.record.fileSize,
    ms: second.ms,
    cpu: cpu1.own - cpu0.own + cpu1.children - cpu0.children,
    stored: second.record.fileSize,
    growth,
    changedZstd: changed,
  };
}

// ---- report ------------------------------------------------------------------------------------

function report(f: Figures): void {
  const { tree, change, stock, repository: repo, differential: diff } = f;
  console.log(
    `  tree: ${tree.files.length} files, ${mib(tree.bytes)} (${mib(tree.textBytes)} text); change: ` +
      `${change.modified.length} rewritten, ${change.deleted.length} deleted, ${change.added.length} added ` +
      `(${mib(change.bytes)} written)`,
  );
  const row = (name: string, r: SecondRun, stored: string): void =>
    console.log(
      `  ${name.padEnd(24)} first ${secs(r.firstMs)} (${mib(r.firstStored)}); ` +
        `second ${secs(r.ms)}, CPU ${r.cpu.toFixed(2)} s; ${stored}`,
    );
  row('stock restic', stock, `data_added ${mib(stock.stored)}, repository grew ${mib(stock.growth)}`);
  row('backplane repository', repo, `fileSize (added) ${mib(repo.stored)}, repository grew ${mib(repo.growth)}`);
  row(
    'backplane differential',
    diff,
    `stored ${mib(diff.stored)}; changed files tar | zstd -3 ${mib(diff.changedZstd)}`,
  );
  const goals: [string, string, number, number][] = [
    ['repository 2nd run wall <= 1.2x stock', `${secs(repo.ms)} vs ${secs(stock.ms)}`, repo.ms / stock.ms, 1.2],
    [
      'repository growth <= 1.2x stock growth',
      `${mib(repo.growth)} vs ${mib(stock.growth)}`,
      repo.growth / stock.growth,
      1.2,
    ],
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
  console.log(`  ${'differential 2nd run wall (no goal)'.padEnd(42)}${secs(diff.ms)}`);
}

export async function benchBackupChanges(options: { bytes?: number } = {}): Promise<void> {
  const bytes = options.bytes ?? Number(process.env.BACKPLANE_BENCH_CHANGES_MB ?? 1024) * MiB;
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-changes-'));
  await withCleanup(
    () => rm(dir, { recursive: true, force: true }),
    async () => {
      console.log(`second backup after a 1% change: stock restic, differential and repository modes (${machine()})`);
      const base = join(dir, 'base');
      const root = join(dir, 'tree');
      const t0 = performance.now();
      const tree = await generateChangesTree(base, bytes);
      console.log(`  generated ${tree.files.length} files, ${mib(tree.bytes)} in ${secs(performance.now() - t0)}`);
      const stock = await stockRestic(dir, base, root, tree);
      const targetDir = join(dir, 'target');
      const paths = { dir, base, root, tree };
      const [differential, repository] = await withMaster(join(dir, 'data'), targetDir, async (master, targetId) => [
        await backplaneMode(master, targetId, targetDir, 'differential', paths),
        await backplaneMode(master, targetId, targetDir, 'repository', paths),
      ]);
      report({ tree, change: stock.change, stock: stock.run, repository: repository!, differential: differential! });
    },
  );
}

if (import.meta.main) await benchBackupChanges();
