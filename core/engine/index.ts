/**
 * The run kernel: everything a backup or restore does to bytes and files, with no database, no
 * HTTP and no feature behind it. The agent and the master's services use it through this module
 * only (the boundary check enforces it; docs/architecture.md#the-run-kernel).
 */

// Bytes: compression, age encryption, hashing, fan-out to targets.
export * from './stream/age-identity.ts';
export * from './stream/age-native.ts';
export * from './stream/checksum-guard.ts';
export * from './stream/compression.ts';
export * from './stream/counting-coalescer.ts';
export * from './stream/encryption.ts';
export * from './stream/fan-out.ts';
export * from './stream/pipeline.ts';
export * from './stream/target-types.ts';

// Archives: tar in and out (Node and GNU tar), manifests, dump archives.
export * from './archive/dump-archive.ts';
export * from './archive/gnu-tar-source.ts';
export * from './archive/manifest-entry.ts';
export * from './archive/tar-entries.ts';
export * from './archive/tar-entry-flow.ts';
export * from './archive/tar-index.ts';
export * from './archive/tar-name-walk.ts';
export * from './archive/tar-snapshot.ts';
export * from './archive/tar-source.ts';
export * from './archive/tar-walk.ts';

// A backup run: what it reads, what it produces and how it is named.
export * from './backup/artifact-run.ts';
export * from './backup/run-stop.ts';
export * from './backup/run-warnings.ts';
export * from './backup/storage-key.ts';
export * from './backup/task-source.ts';

// A restore: checked extraction into place, database restores.
export * from './restore/artifact-check.ts';
export * from './restore/database-restore.ts';
export * from './restore/dump-archive-restore.ts';
export * from './restore/gnu-tar-extract.ts';
export * from './restore/rooted-folders.ts';
export * from './restore/safe-extract.ts';
export * from './restore/selection.ts';
export * from './restore/staged-restore.ts';

// Repositories: restic driven as a program (deduplicated, encrypted snapshots), and its REST backend
// served onto any storage in restic's own layout.
export * from './repository/loopback-bridge.ts';
export * from './repository/rest-bridge.ts';
export * from './repository/restic-backup.ts';
export * from './repository/restic-copy.ts';
export * from './repository/restic-error.ts';
export * from './repository/restic-excludes.ts';
export * from './repository/restic-http.ts';
export * from './repository/restic-layout.ts';
export * from './repository/restic-process.ts';
export * from './repository/restic-program.ts';
export * from './repository/restic-records.ts';
export * from './repository/restic-restore.ts';
export * from './repository/restic.ts';
export * from './repository/source-listing.ts';

// This machine and installation: text, host facts, folder listings, provider registries.
export * from './host/dir-listing.ts';
export * from './host/discovered-database.ts';
export * from './host/driver-for.ts';
export * from './host/host-info.ts';
export * from './host/installation.ts';
export * from './host/provider-registry.ts';
export * from './host/run-log.ts';
export * from './host/text.ts';
