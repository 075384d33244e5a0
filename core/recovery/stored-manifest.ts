import type { MikroORM } from '@mikro-orm/core';
import { BackupRecordEntryEntity } from '../db/entities/backup-record.ts';

// Apart from artifact-check.ts, which agents load too: reading the manifest is the master's
// (it needs the ORM, which an agent never loads).

/** The manifest stored at backup time: archive path -> size (files) or -1 (folders, links). */
export async function loadManifest(orm: MikroORM, recordId: number): Promise<Map<string, number>> {
  // In pages, outside the identity map: tens of thousands of managed entities would cost far
  // more memory than the paths themselves.
  const manifest = new Map<string, number>();
  let after = 0;
  for (;;) {
    const rows = await orm.em.fork().find(
      BackupRecordEntryEntity,
      { recordId, id: { $gt: after } },
      {
        fields: ['id', 'path', 'size', 'entryType'],
        orderBy: { id: 'asc' },
        limit: MANIFEST_PAGE,
        disableIdentityMap: true,
      },
    );
    for (const r of rows) manifest.set(r.path, r.entryType === 'file' ? r.size : -1);
    if (rows.length < MANIFEST_PAGE) return manifest;
    after = rows.at(-1)!.id;
  }
}

const MANIFEST_PAGE = 5000;
