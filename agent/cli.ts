import { mkdir, readFile } from 'node:fs/promises';
import { PROJECT_ROOT, errorText, VERSION } from '../core/engine/index.ts';
import { loadStandaloneRegistries } from '../core/plugin-host/standalone.ts';
import { Agent } from './agent.ts';
import { AGENT_USAGE, AgentConfigError, loadAgentConfig, type AgentConfig } from './config.ts';
import { resolveToken } from './enroll.ts';
import { createAgentLogger } from './logger.ts';
import { MasterClient } from './master-client.ts';

/** Exit code for a configuration the agent cannot start with. */
const CONFIG_EXIT = 2;
/** After a clean stop, a plugin's stray timer must not keep the process alive. */
const EXIT_FALLBACK_MS = 2000;

async function readCa(config: AgentConfig): Promise<Buffer | undefined> {
  if (!config.caCertFile) return undefined;
  try {
    return await readFile(config.caCertFile);
  } catch (err) {
    throw new AgentConfigError(`cannot read the CA certificate file ${config.caCertFile}: ${(err as Error).message}`);
  }
}

/**
 * `backplane agent ...`: resolves when the agent has stopped (SIGTERM/SIGINT, results sent),
 * with the process exit code.
 */
export async function runAgentCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(AGENT_USAGE);
    return 0;
  }
  let config: AgentConfig;
  try {
    config = loadAgentConfig({ argv, env });
  } catch (err) {
    if (err instanceof AgentConfigError) {
      console.error(`configuration error: ${err.message}`);
      return CONFIG_EXIT;
    }
    throw err;
  }
  const log = createAgentLogger(config.logLevel);

  // Signals are taken from the start: a stop during enrollment or the first heartbeat is clean too.
  const early = new AbortController();
  let agent: Agent | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    log.info({ signal }, 'signal received');
    early.abort(new Error('the agent was stopped'));
    agent?.stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    const ca = await readCa(config);
    const makeClient = (token: string): MasterClient =>
      new MasterClient({
        master: config.master,
        token,
        ...(ca ? { ca } : {}),
        ...(config.proxyUrl ? { proxy: config.proxyUrl } : {}),
      });
    const { token, origin } = await resolveToken(config, makeClient, early.signal);
    if (origin === 'enrollment')
      log.info(
        config.tokenFile ? { tokenFile: config.tokenFile } : {},
        config.tokenFile
          ? 'enrolled; the node token is stored in the token file'
          : 'enrolled; no token file is set, so the token lives only in this process',
      );
    await mkdir(config.tempDir, { recursive: true, mode: 0o700 });
    const registries = await loadStandaloneRegistries({
      projectRoot: PROJECT_ROOT,
      plugins: config.plugins,
      disabled: config.pluginsDisabled,
      logger: { level: config.logLevel },
    });
    log.info(
      {
        version: VERSION,
        master: config.master,
        tempDir: config.tempDir,
        storageTypes: registries.storageTypes.list().map((t) => t.type),
        databaseDrivers: registries.databaseDrivers.list().map((d) => d.type),
      },
      'agent starting',
    );
    const client = makeClient(token);
    agent = new Agent({
      client,
      registries,
      log,
      tempDir: config.tempDir,
      heartbeatSeconds: config.heartbeatSeconds,
      pollSeconds: config.pollSeconds,
      stopGraceSeconds: config.stopGraceSeconds,
    });
    if (early.signal.aborted) agent.stop();
    try {
      await agent.run();
    } finally {
      client.close();
      await registries.close().catch(() => undefined);
    }
    setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_FALLBACK_MS).unref();
    return 0;
  } catch (err) {
    if (early.signal.aborted) return 0;
    if (err instanceof AgentConfigError) {
      log.error(`configuration error: ${err.message}`);
      return CONFIG_EXIT;
    }
    log.error(`the agent cannot start: ${errorText(err)}`);
    return 1;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
