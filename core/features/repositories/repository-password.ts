import type { Config } from '../../config/config.ts';
import { openOrm, migrate } from '../../db/orm.ts';
import { RepositoryEntity } from '../../db/entities/repository.ts';
import { StorageTargetEntity } from '../../db/entities/storage-target.ts';
import { loadMasterKey, deriveKey } from '../../security/master-key.ts';
import { SecretBox } from '../../security/secret-box.ts';
import { repositoryPasswordAad } from '../../backup/repositories.ts';

/**
 * For a restore with the stock `restic` (docs/repositories.md): the password of a task's
 * repository on a target, read on the master's own machine with access to its data folder and
 * key, as `reset-password` is. Never served over the API.
 */
export async function repositoryPassword(
  config: Config,
  taskId: number,
  storageTargetId: number,
): Promise<{ password: string; prefix: string; target: string }> {
  const orm = await openOrm(config.databaseUrl);
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const repository = await em.findOne(
      RepositoryEntity,
      { taskId, storageTargetId },
      { populate: ['sealedPassword'] },
    );
    if (!repository) throw new Error(`task ${taskId} has no repository on storage target ${storageTargetId}`);
    const target = await em.findOne(StorageTargetEntity, { id: storageTargetId });
    const box = new SecretBox(deriveKey(loadMasterKey(config.dataDir, config.secretKey), 'secrets'));
    return {
      password: box.open(repository.sealedPassword, repositoryPasswordAad(repository.id)),
      prefix: repository.prefix,
      target: target?.name ?? String(storageTargetId),
    };
  } finally {
    await orm.close();
  }
}
