import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** When a read found a copy's stored bytes differ from its record (readers then prefer other copies). */
export class Migration008CopyCorruption extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ['alter table `backup_record_copies` add column `corrupt_at` datetime null'],
      postgresql: ['alter table "backup_record_copies" add "corrupt_at" timestamptz null'],
    });
  }
}
