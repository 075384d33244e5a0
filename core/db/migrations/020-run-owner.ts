import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

const TABLES = ['backup_records', 'restore_records', 'verify_records', 'replication_records'];

/**
 * Which master runs a record: its boot number (the event boot epoch, unique for every start of
 * every master on the database). Several masters share one PostgreSQL database; when one dies the
 * leader settles the records it ran, and only those (core/runs/dead-masters.ts). 0 is no master's:
 * records an agent runs, and every record written before this migration (whose master, if any,
 * is gone).
 */
export class Migration020RunOwner extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: TABLES.map((t) => `alter table \`${t}\` add column \`master_id\` integer not null default 0`),
      postgresql: [
        ...TABLES.map((t) => `alter table "${t}" add "master_id" int not null default 0`),
        // Event ids shared by every master (core/events/event-relay.ts).
        'create sequence if not exists backplane_event_ids',
      ],
    });
  }
}
