import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Node settings (labels, concurrency, bandwidth), the last error, and the previous token during a rotation's grace period. */
export class Migration006Nodes extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "alter table `nodes` add column `previous_token_hash` text null",
        "alter table `nodes` add column `previous_token_expires_at` datetime null",
        "alter table `nodes` add column `labels` text not null default ''",
        "alter table `nodes` add column `max_concurrent` integer not null default 1",
        "alter table `nodes` add column `bandwidth_limit` text not null default ''",
        "alter table `nodes` add column `last_error` text not null default ''",
      ],
      postgresql: [
        "alter table \"nodes\" add \"previous_token_hash\" varchar(64) null, add \"previous_token_expires_at\" timestamptz null, add \"labels\" varchar(500) not null default '', add \"max_concurrent\" int not null default 1, add \"bandwidth_limit\" varchar(32) not null default '', add \"last_error\" text not null default ''",
      ],
    });
  }
}
