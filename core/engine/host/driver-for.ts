import type { DatabaseDriverType } from '@backplane/plugin-api';

/** The driver serving a task type: by name or alias (`pgsql` is PostgreSQL). */
export function driverFor(drivers: DatabaseDriverType[], type: string): DatabaseDriverType | undefined {
  return drivers.find((d) => d.type === type || d.aliases?.includes(type));
}
