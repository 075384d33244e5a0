#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from './config/load-config.ts';
import { VERSION } from './engine/index.ts';

// Each command loads what it needs when it runs: the agent never pays for the master's modules
// (the web server, the ORM, the plugins), nor the master for the agent's.

const USAGE = `backplane ${VERSION}

Usage:
  backplane [serve]                                 start the master (default)
  backplane migrate                                 apply database migrations and exit
  backplane reset-password --username NAME --password NEW
                                                    set a user's password offline (revokes sessions)
  backplane repository-password --task ID --target ID
                                                    print a repository's restic password (docs/repositories.md)
  backplane agent --master URL --token-file PATH    run the node agent
  backplane version

Configuration comes from BACKPLANE_* environment variables or config/backplane.yaml (see docs/operations.md).`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { startServer } = await import('./server.ts');
      await startServer(loadConfig());
      return -1; // keep running
    }
    case 'migrate': {
      const { openOrm, migrate } = await import('./db/orm.ts');
      const orm = await openOrm(loadConfig().databaseUrl);
      try {
        const applied = await migrate(orm);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await orm.close();
      }
      return 0;
    }
    case 'reset-password': {
      const { values } = parseArgs({
        args: rest,
        options: { username: { type: 'string' }, password: { type: 'string' } },
      });
      if (!values.username || !values.password) {
        console.error('reset-password needs --username and --password');
        return 2;
      }
      const { resetPassword } = await import('./features/users/reset-password.ts');
      await resetPassword(loadConfig(), values.username, values.password);
      console.log(`password of ${values.username} changed; existing sessions are revoked`);
      return 0;
    }
    case 'repository-password': {
      const { values } = parseArgs({ args: rest, options: { task: { type: 'string' }, target: { type: 'string' } } });
      const task = Number(values.task);
      const target = Number(values.target);
      if (!Number.isSafeInteger(task) || task <= 0 || !Number.isSafeInteger(target) || target <= 0) {
        console.error('repository-password needs --task ID and --target ID');
        return 2;
      }
      const { repositoryPassword } = await import('./features/repositories/repository-password.ts');
      const found = await repositoryPassword(loadConfig(), task, target);
      // The password alone on stdout, for `--password-file <(...)` or a pipe; where it is, on stderr.
      console.error(`repository ${found.prefix} on storage target "${found.target}"`);
      console.log(found.password);
      return 0;
    }
    case 'agent': {
      const { runAgentCli } = await import('../agent/cli.ts');
      return runAgentCli(rest);
    }
    case 'version':
    case '--version':
      console.log(VERSION);
      return 0;
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
    process.exitCode = 1;
  },
);
