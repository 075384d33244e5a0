import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** The agent command queue (claims with leases), label-pool placement of tasks, and an index for token lookups during a rotation grace. */
export class Migration007AgentCommands extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `agent_commands` (`id` integer not null primary key autoincrement, `node_id` integer not null, `type` text not null, `status` text not null default 'pending', `payload` text not null default '{}', `secrets` text not null default '', `result` text not null default '', `error` text not null default '', `record_kind` text not null default '', `record_id` integer not null default 0, `attempts` integer not null default 0, `claimed_at` datetime null, `started_at` datetime null, `lease_expires_at` datetime null, `completed_at` datetime null, `lost_at` datetime null, `created_at` datetime not null)",
        'create index `agent_commands_node_id_status_index` on `agent_commands` (`node_id`, `status`)',
        'create index `agent_commands_status_lease_expires_at_index` on `agent_commands` (`status`, `lease_expires_at`)',
        'create index `agent_commands_record_kind_record_id_index` on `agent_commands` (`record_kind`, `record_id`)',
        "alter table `backup_tasks` add column `node_label` text not null default ''",
        'create index `nodes_previous_token_hash_index` on `nodes` (`previous_token_hash`)',
      ],
      postgresql: [
        'create table "agent_commands" ("id" serial primary key, "node_id" int not null, "type" varchar(32) not null, "status" varchar(16) not null default \'pending\', "payload" text not null default \'{}\', "secrets" text not null default \'\', "result" text not null default \'\', "error" text not null default \'\', "record_kind" varchar(16) not null default \'\', "record_id" int not null default 0, "attempts" int not null default 0, "claimed_at" timestamptz null, "started_at" timestamptz null, "lease_expires_at" timestamptz null, "completed_at" timestamptz null, "lost_at" timestamptz null, "created_at" timestamptz not null)',
        'create index "agent_commands_node_id_status_index" on "agent_commands" ("node_id", "status")',
        'create index "agent_commands_status_lease_expires_at_index" on "agent_commands" ("status", "lease_expires_at")',
        'create index "agent_commands_record_kind_record_id_index" on "agent_commands" ("record_kind", "record_id")',
        'alter table "backup_tasks" add "node_label" varchar(64) not null default \'\'',
        'create index "nodes_previous_token_hash_index" on "nodes" ("previous_token_hash")',
      ],
    });
  }
}
