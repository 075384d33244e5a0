import type { Config } from '../../config/config.ts';
import { openOrm, migrate } from '../../db/orm.ts';
import { UserEntity } from '../../db/entities/user.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { revokeSessions } from '../../auth/session-revocation.ts';
import { revokeDevicesAndPendingCodes } from '../../auth/mfa/factor-reset.ts';

/** Offline recovery for a locked-out admin: needs shell access to the data dir, nothing else. */
export async function resetPassword(config: Config, username: string, password: string): Promise<void> {
  if (password.length < 8 || password.length > 128) throw new Error('the password must be 8 to 128 characters');
  const orm = await openOrm(config.databaseUrl);
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const user = await em.findOne(UserEntity, { username });
    if (!user) throw new Error(`no user named "${username}"`);
    user.passwordHash = await hashPassword(password);
    await revokeSessions(em, user);
    await revokeDevicesAndPendingCodes(em, user.id);
    await em.flush();
  } finally {
    await orm.close();
  }
}
