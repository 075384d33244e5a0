import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/load-config.ts';
import { loadOrCreateAgeIdentity, type AgeKeyPair } from '../engine/index.ts';

/** The installation's age key pair: the configured file, or one kept (created once) in the data folder. */
export async function loadAgeKeys(config: Config): Promise<AgeKeyPair> {
  try {
    const { identity, recipient } = await loadOrCreateAgeIdentity(config.dataDir, config.ageIdentityFile);
    return { identity, recipient };
  } catch (err) {
    if (!config.ageIdentityFile) throw err;
    throw new ConfigError(`BACKPLANE_AGE_IDENTITY_FILE ${config.ageIdentityFile}: ${(err as Error).message}`);
  }
}
