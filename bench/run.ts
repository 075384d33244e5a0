import { benchStartup } from './startup.ts';
import { benchStorageLocal } from './storage-local.ts';
import { benchStorageRclone } from './storage-rclone.ts';
import { benchBackupFiles } from './backup-files.ts';
import { benchBackupPostgres } from './backup-postgres.ts';
import { benchBackupChanges } from './backup-changes.ts';
import { benchAgents } from './agents.ts';
import { benchAge } from './age.ts';
import { benchInsight } from './insight.ts';
import { benchApi } from './api.ts';
import { benchMasters } from './masters.ts';

/**
 * `npm run bench`: every benchmark prints its figures; none asserts timings.
 * Sizes: BACKPLANE_BENCH_LOCAL_MB, BACKPLANE_BENCH_RCLONE_MB, BACKPLANE_BENCH_BACKUP_MB,
 * BACKPLANE_BENCH_CHANGES_MB and BACKPLANE_BENCH_PG_MB (1024 each by default); agents:
 * BACKPLANE_BENCH_AGENTS (10000) and BACKPLANE_BENCH_AGENTS_SECONDS (60); age: BACKPLANE_BENCH_AGE_MB (256); insight:
 * BACKPLANE_BENCH_INSIGHT_RECORDS (100000); api: BACKPLANE_BENCH_API_SECONDS (10); masters:
 * BACKPLANE_BENCH_MASTERS_NODES (1000), BACKPLANE_BENCH_MASTERS_CLIENTS (32),
 * BACKPLANE_BENCH_MASTERS_SECONDS (10).
 *
 * Sections can be picked by name: `node bench/run.ts backup-files backup-postgres`
 * (`npm run bench -- backup-files`); no name runs them all.
 */
const sections: { name: string; title: string; run: () => Promise<void> }[] = [
  { name: 'startup', title: 'master start-up and idle memory', run: () => benchStartup() },
  { name: 'storage-local', title: 'local_disk throughput', run: () => benchStorageLocal() },
  { name: 'storage-rclone', title: 'rclone throughput', run: () => benchStorageRclone() },
  { name: 'backup-files', title: 'file backup end to end', run: () => benchBackupFiles() },
  { name: 'backup-changes', title: 'backups that store only what changed', run: () => benchBackupChanges() },
  { name: 'backup-postgres', title: 'PostgreSQL backup end to end', run: () => benchBackupPostgres() },
  { name: 'api', title: 'hot API routes against a bare Fastify route', run: () => benchApi() },
  { name: 'agents', title: 'agent protocol at scale', run: () => benchAgents() },
  { name: 'masters', title: 'heartbeat capacity with 1, 2 and 3 masters on PostgreSQL', run: () => benchMasters() },
  { name: 'insight', title: 'dashboard, reports and search at 100 000 records', run: () => benchInsight() },
  { name: 'age', title: 'age encryption, native against the age-encryption package', run: () => benchAge() },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !sections.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available: ${sections.map((s) => s.name).join(', ')}`);
  process.exit(2);
}

console.log(`Backplane benchmarks on Node ${process.version}, ${process.platform}/${process.arch}`);
for (const section of sections) {
  if (wanted.length > 0 && !wanted.includes(section.name)) continue;
  console.log(`\n# ${section.title}`);
  await section.run();
}
