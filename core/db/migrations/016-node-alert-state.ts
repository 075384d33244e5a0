import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * The node status last announced by a node_online/node_offline alert: kept in the database so a
 * transition is announced once, across restarts too.
 */
export class Migration016NodeAlertState extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ["alter table `nodes` add column `alert_status` text not null default ''"],
      postgresql: ['alter table "nodes" add "alert_status" varchar(16) not null default \'\''],
    });
  }
}
