/** What the API answers in place of a stored secret (plugin configs, settings); sent back, it keeps the secret. */
export const SECRET_MASK = '********';

/** A config key as a label: "access_key_id" / "basePath" / "webhookUrl" → "Access key id" / "Base path" / "Webhook url". */
export function humanise(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
