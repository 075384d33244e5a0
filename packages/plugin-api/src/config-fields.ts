import { ProviderError } from './contracts.ts';

/**
 * Readers of a provider's settings after schema validation, for built-in providers: each
 * refuses a wrong value with a ProviderError('permanent') that names the provider and the field.
 */
export function configReaders(provider: string) {
  return {
    text(config: Record<string, unknown>, key: string, required: boolean): string | undefined {
      const value = config[key];
      if (value === undefined || value === null || value === '') {
        if (required) throw new ProviderError('permanent', `${provider}: "${key}" is required`);
        return undefined;
      }
      if (typeof value !== 'string' || value.includes('\0'))
        throw new ProviderError('permanent', `${provider}: "${key}" must be a string`);
      return value;
    },
    integer(config: Record<string, unknown>, key: string, fallback: number, max: number): number {
      const value = config[key] ?? fallback;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
        throw new ProviderError('permanent', `${provider}: "${key}" must be an integer from 1 to ${max}`);
      }
      return value;
    },
  };
}

/** Database drivers dump one database per call: the name of it, or a refusal. */
export function oneDatabase(provider: string, databases: string[]): string {
  const [name] = databases;
  if (databases.length !== 1 || typeof name !== 'string' || name === '' || name.includes('\0')) {
    throw new ProviderError('permanent', `${provider}: a dump covers exactly one database (run one dump per database)`);
  }
  return name;
}
