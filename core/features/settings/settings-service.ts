import type { EntityManager } from '@mikro-orm/core';
import { SettingEntity } from '../../db/entities/setting.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { AppError } from '../../http/app-error.ts';
import { SETTINGS, MASK } from './settings-catalogue.ts';

const aad = (key: string) => `settings:${key}`;

export class SettingsService {
  readonly #em: EntityManager;
  readonly #box: SecretBox;

  constructor({ em, secretBox }: { em: EntityManager; secretBox: SecretBox }) {
    this.#em = em;
    this.#box = secretBox;
  }

  /** Raw (unmasked, decrypted) values of the allow-listed keys, for server-side use. */
  async values(): Promise<Record<string, string>> {
    const rows = await this.#em.find(SettingEntity, { key: { $in: Object.keys(SETTINGS) } });
    const stored = new Map(rows.map((r) => [r.key, r.value]));
    const out: Record<string, string> = {};
    for (const [key, def] of Object.entries(SETTINGS)) {
      const value = stored.get(key);
      out[key] =
        value === undefined ? def.default : def.secret && value !== '' ? this.#box.open(value, aad(key)) : value;
    }
    return out;
  }

  /** What clients see: every allow-listed key, secrets masked (empty when unset). */
  async publicView(): Promise<Record<string, string>> {
    const values = await this.values();
    for (const [key, def] of Object.entries(SETTINGS)) {
      if (def.secret) values[key] = values[key] ? MASK : '';
    }
    return values;
  }

  /**
   * Applies a partial update. Unknown keys, invalid values and values a setting cannot honour
   * yet are refused as a whole (nothing is written); a secret sent back as the mask keeps its
   * stored value.
   */
  async update(patch: Record<string, string | number | boolean>): Promise<string[]> {
    const problems: { key: string; message: string }[] = [];
    const unsupported: { key: string; message: string }[] = [];
    const changes: [string, string][] = [];
    for (const [key, raw] of Object.entries(patch)) {
      const def = SETTINGS[key];
      if (!def) {
        problems.push({ key, message: 'unknown setting' });
        continue;
      }
      const value = String(raw).trim();
      if (def.secret && value === MASK) continue;
      const message = def.validate(value);
      if (message) problems.push({ key, message });
      else if (def.notYet && value !== def.default)
        unsupported.push({ key, message: `"${value}" is not supported yet: ${def.notYet}` });
      else changes.push([key, value]);
    }
    if (problems.length > 0) throw new AppError('SETTINGS_INVALID', { details: problems });
    if (unsupported.length > 0) {
      throw new AppError('SETTINGS_UNSUPPORTED', {
        message: `Not supported yet: ${unsupported.map((u) => u.key).join(', ')}.`,
        details: unsupported,
      });
    }
    await this.#em.transactional(async (em) => {
      for (const [key, value] of changes) {
        const stored = SETTINGS[key]!.secret && value !== '' ? this.#box.seal(value, aad(key)) : value;
        await em.upsert(SettingEntity, { key, value: stored, updatedAt: new Date() });
      }
    });
    return changes.map(([key]) => key);
  }
}
