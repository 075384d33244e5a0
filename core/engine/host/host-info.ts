import { arch, hostname, networkInterfaces, platform, release } from 'node:os';

export interface HostInfo {
  hostname: string;
  ipAddress: string;
  os: string;
  arch: string;
}

/** The first non-internal IPv4 address, in the order the system lists its interfaces ('' when none). */
export function firstExternalIPv4(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.family === 'IPv4' && !a.internal) return a.address;
    }
  }
  return '';
}

/** What an agent's heartbeat tells the master about its machine (and the master about itself, as the local node); read each time, addresses change. */
export function hostInfo(): HostInfo {
  return {
    hostname: hostname().slice(0, 255),
    ipAddress: firstExternalIPv4(),
    os: `${platform()} ${release()}`.slice(0, 64),
    arch: arch(),
  };
}
