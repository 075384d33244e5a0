import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * What an installer installs (its options: mode, architecture, agent version,
 * download source, the URL, proxy and CA the agent uses) and at most one local node (the master).
 */
export class Migration012NodeInstallOptions extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "alter table `install_tokens` add column `mode` text not null default 'systemd'",
        "alter table `install_tokens` add column `arch` text not null default 'auto'",
        "alter table `install_tokens` add column `agent_version` text not null default ''",
        "alter table `install_tokens` add column `download_src` text not null default 'github'",
        "alter table `install_tokens` add column `agent_master_url` text not null default ''",
        "alter table `install_tokens` add column `proxy_url` text not null default ''",
        "alter table `install_tokens` add column `ca_cert_file` text not null default ''",
        'create unique index `nodes_one_local` on `nodes` (`is_local`) where `is_local` = true',
      ],
      postgresql: [
        'alter table "install_tokens" add "mode" varchar(16) not null default \'systemd\', add "arch" varchar(8) not null default \'auto\', add "agent_version" varchar(64) not null default \'\', add "download_src" varchar(16) not null default \'github\', add "agent_master_url" varchar(2048) not null default \'\', add "proxy_url" varchar(2048) not null default \'\', add "ca_cert_file" varchar(512) not null default \'\'',
        'create unique index "nodes_one_local" on "nodes" ("is_local") where "is_local" = true',
      ],
    });
  }
}
