import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  driverConfig,
  driverFor,
  restoreDatabase,
  restoreDumpArchive,
  archivePath,
  stagedRestore,
  Restic,
  restoreResticSnapshot,
  SelectionMatch,
  nothingSelectedText,
  errorText,
  humanBytes,
} from '../../core/engine/index.ts';
import type { RestoreSpec } from '../../core/agent-protocol/wire.ts';
import { removeSpool, spoolDir, spoolPath } from '../spool.ts';
import { UpdateReporter, reportFailure, type LogLevel } from '../update-reporter.ts';
import { payloadId, providerDeps, type CommandContext, type CommandOutcome } from './command-types.ts';

const FETCH_ATTEMPTS = 3;

/** The master's CA in a file restic reads (removed when the restore ends). */
async function caFile(tempDir: string, restoreId: number, ca: string | Buffer): Promise<string> {
  const path = join(tempDir, `restore-${restoreId}-ca.pem`);
  await writeFile(path, ca, { mode: 0o600 });
  return path;
}

/** Spools the master's checked raw artifact; throws unless exactly `rawSize` bytes arrived. */
async function fetchArtifact(
  client: CommandContext['client'],
  base: string,
  spool: string,
  rawSize: number,
  signal: AbortSignal,
  part = '',
): Promise<number> {
  const download = await client.download(`${base}/artifact${part}`, { signal });
  try {
    await pipeline(download.stream, createWriteStream(spool, { mode: 0o600 }), { signal });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw new Error(`the artifact arrived incomplete (${errorText(err)})`);
  }
  const received = (await stat(spool)).size;
  if (received !== rawSize) throw new Error(`the artifact arrived incomplete: ${received} of ${rawSize} bytes`);
  return received;
}

/**
 * One placed restore: the master streams the checked raw artifact, the agent spools it whole
 * and restores only from a spool of exactly `rawSize` bytes (a connection the master cut on a
 * failed check arrives short): nothing is overwritten from an unchecked artifact.
 */
export async function restoreRecordCommand(
  payload: Record<string, unknown>,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  const restoreId = payloadId(payload, 'restoreId');
  const { client } = ctx;
  const ended = new AbortController();
  const signal = AbortSignal.any([ctx.signal, ended.signal]);
  const base = `/api/agent/restores/${restoreId}`;
  const reporter = new UpdateReporter({
    client,
    path: base,
    onRejected: (status) => ended.abort(new Error(`the master ended the restore (${status})`)),
    onError: (message) => ctx.log.warn({ restoreId }, `restore update: ${message}`),
  });
  const log = (level: LogLevel, message: string): void => reporter.log(level, message);
  const result = { restoreId };
  const spool = spoolPath(ctx.tempDir, `restore-${restoreId}`);
  const baseSpool = spoolPath(ctx.tempDir, `restore-${restoreId}-base`);

  try {
    const spec = await client.get<RestoreSpec>(`${base}/spec`, { signal });
    const running = await reporter.send({ status: 'running' }, { signal });
    if (!running.accepted) return { success: false, error: `the restore is already ${running.status}`, result };
    reporter.start();
    log('info', `restoring ${spec.fileName} (${humanBytes(spec.rawSize)} raw) on this node`);

    if (spec.repository) {
      // A repository record: restic on this node restores the snapshot through the master's bridge.
      const { ca, proxy } = client.transport;
      const restic = new Restic({
        repository: `rest:${client.urlOf(spec.repository.path)}`,
        password: spec.repository.password,
        signal,
        ...(proxy ? { env: { HTTP_PROXY: proxy, HTTPS_PROXY: proxy } } : {}),
        ...(ca ? { cacert: await caFile(ctx.tempDir, restoreId, ca) } : {}),
      });
      const selected = (spec.selectedPaths ?? [])
        .map((p) => archivePath(p))
        .filter((p): p is string => typeof p === 'string');
      const snapshotId = spec.repository.snapshotId;
      log(
        'info',
        `restoring snapshot ${snapshotId.slice(0, 8)} from the repository on "${spec.repository.targetName}"`,
      );
      const restored = await stagedRestore(Readable.from([]), {
        root: spec.targetPath || '/',
        selectedPaths: spec.selectedPaths ?? [],
        onWarning: (message) => log('warn', message),
        signal,
        extract: (staging) => restoreResticSnapshot(restic, snapshotId, staging, selected),
      });
      log(
        'info',
        `restored ${restored.entries} entries (${humanBytes(restored.bytes)}) under ${spec.targetPath || '/'}`,
      );
      const final = await reporter.send(
        { status: 'success', bytes: restored.bytes, entries: restored.entries },
        { final: true },
      );
      return final.accepted
        ? { success: true, result }
        : { success: false, error: `the restore is already ${final.status}`, result };
    }

    // The master cuts a transfer whose copy failed its check and marks that copy, so a fetch
    // again reads the next copy; a bounded number of fetches, each spooled afresh.
    const fetchWhole = async (to: string, rawSize: number, part = ''): Promise<number> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fetchArtifact(client, base, to, rawSize, signal, part);
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          if (attempt >= FETCH_ATTEMPTS) throw err;
          log('warn', `${errorText(err)}; fetching it again (attempt ${attempt + 1} of ${FETCH_ATTEMPTS})`);
        }
      }
    };
    // A differential: its full first, which the restore applies before it (docs/differential.md).
    if (spec.base) {
      const got = await fetchWhole(baseSpool, spec.base.rawSize, '?part=base');
      log('info', `the full it builds on, ${spec.base.fileName}, received whole (${humanBytes(got)})`);
    }
    const received = await fetchWhole(spool, spec.rawSize);
    log('info', `artifact received whole (${humanBytes(received)})`);

    let bytes = received;
    let entries: number | undefined;
    if (spec.database) {
      const db = spec.database;
      const driver = driverFor(ctx.registries.databaseDrivers.list(), db.type);
      if (!driver) throw new Error(`no database driver is installed on this node for "${db.type}"`);
      const instance = await driver.create(
        driverConfig(driver, { dbHost: db.host, dbPort: db.port, dbUser: db.user, dbPath: db.path }, db.password ?? ''),
        // The driver's scratch files (the password file psql or mysql reads) go where a restarted agent clears leftovers.
        { ...providerDeps(ctx, log), tempDir: spoolDir(ctx.tempDir) },
      );
      if (signal.aborted) throw signal.reason;
      if (db.archive) {
        const restored = await restoreDumpArchive(() => Promise.resolve(createReadStream(spool)), {
          driver: { type: driver, instance },
          selected: db.archive.databases,
          targetDatabase: db.archive.targetDatabase,
          restoreId,
          log,
          signal,
        });
        log('info', `restored ${restored.length} database(s): ${restored.join(', ')}`);
      } else {
        await restoreDatabase(
          { type: driver, instance },
          db.target,
          restoreId,
          () => Promise.resolve(createReadStream(spool)),
          log,
        );
        log('info', `database ${db.target} restored`);
      }
    } else {
      const selected = (spec.selectedPaths ?? [])
        .map((p) => archivePath(p))
        .filter((p): p is string => typeof p === 'string');
      // The master refuses what the manifest shows missing; without a manifest the archive tells,
      // before anything is moved into place (staged-restore.ts).
      const match = new SelectionMatch(selected);
      const extracted = await stagedRestore(createReadStream(spool), {
        root: spec.targetPath || '/',
        selectedPaths: spec.selectedPaths ?? [],
        onName: (path) => match.see(path),
        beforeSwap: () => {
          if (match.unmatched().length > 0) throw new Error(nothingSelectedText('selectedPaths', match.unmatched()));
        },
        onWarning: (message) => log('warn', message),
        signal,
        ...(spec.base
          ? { chain: [{ source: { compression: 'none' as const, open: () => createReadStream(baseSpool) } }] }
          : {}),
      });
      bytes = extracted.bytes;
      entries = extracted.entries;
      log('info', `restored ${entries} entries (${humanBytes(bytes)}) under ${spec.targetPath || '/'}`);
    }
    const final = await reporter.send(
      { status: 'success', bytes, ...(entries !== undefined ? { entries } : {}) },
      { final: true },
    );
    return final.accepted
      ? { success: true, result }
      : { success: false, error: `the restore is already ${final.status}`, result };
  } catch (err) {
    return {
      success: false,
      error: await reportFailure(reporter, signal, err, (m) => ctx.log.warn({ restoreId }, m)),
      result,
    };
  } finally {
    reporter.stop();
    await rm(join(ctx.tempDir, `restore-${restoreId}-ca.pem`), { force: true });
    await removeSpool(spool).catch(() => undefined);
    await removeSpool(baseSpool).catch(() => undefined);
  }
}
