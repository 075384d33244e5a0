import { configError } from '../plugin-host/provider-config.ts';

/*
 * This stays in core, unlike the config aliases a storage type declares: `agentDirectUpload` is
 * core's own setting on every target (the master decides relay or direct upload), and BackupX
 * names its inverse `masterRelay` inside the config of its local-disk type only.
 */

/**
 * BackupX's `masterRelay` on `local_disk` (its LocalDiskConfig): `true` makes a remote agent
 * stream the artifact through the master into the master's folder, which is Backplane's relay
 * (`agentDirectUpload: false`); `false` makes the agent write to `basePath` on its own disk,
 * which is Backplane's `agentDirectUpload: true`. The key is taken out of the config; it
 * decides `agentDirectUpload` unless that is sent too, where the same edit rule as for
 * aliases applies.
 */
export function masterRelayChoice(
  typeName: string,
  config: Record<string, unknown>,
  sentDirect: boolean | undefined,
  storedDirect: boolean | undefined,
): boolean | undefined {
  if (typeName !== 'local_disk' || !('masterRelay' in config)) return sentDirect;
  const relay = config.masterRelay;
  delete config.masterRelay;
  if (relay === undefined || relay === null) return sentDirect;
  if (typeof relay !== 'boolean')
    throw configError(typeName, [{ path: 'config/masterRelay', message: 'must be a boolean' }]);
  const direct = !relay;
  if (sentDirect === undefined || sentDirect === direct) return direct;
  if (storedDirect !== undefined && sentDirect === storedDirect) return direct;
  if (storedDirect !== undefined && direct === storedDirect) return sentDirect;
  throw configError(typeName, [
    {
      path: 'config/masterRelay',
      message: `contradicts agentDirectUpload: ${String(sentDirect)} (masterRelay is its opposite); send one of them`,
    },
  ]);
}

/** `local_disk`'s view adds `masterRelay`, the opposite of `agentDirectUpload`. */
export function masterRelayView(
  typeName: string,
  config: Record<string, unknown>,
  agentDirectUpload: boolean,
): Record<string, unknown> {
  return typeName === 'local_disk' && !('masterRelay' in config)
    ? { ...config, masterRelay: !agentDirectUpload }
    : config;
}
