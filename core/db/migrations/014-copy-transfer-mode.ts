import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * How each copy reached its target (a record's `storageTransferMode`): `direct` when the master or
 * the agent wrote it, `master_relay` when an agent streamed it through the master.
 */
export class Migration014CopyTransferMode extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ["alter table `backup_record_copies` add column `transfer_mode` text not null default 'direct'"],
      postgresql: ['alter table "backup_record_copies" add "transfer_mode" varchar(16) not null default \'direct\''],
    });
  }
}
