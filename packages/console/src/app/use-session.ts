import { useSyncExternalStore } from 'react';
import { onSessionChange, readSession, type StoredSession } from '../api/session.ts';

let cached: StoredSession | null = readSession();
onSessionChange((s) => {
  cached = s;
});

/** The signed-in session (or null), re-rendering when it changes (login, logout, a 401). */
export function useSession(): StoredSession | null {
  return useSyncExternalStore(
    (notify) => onSessionChange(() => notify()),
    () => cached,
  );
}

export type Ability = 'read' | 'write' | 'admin';

/**
 * What the signed-in user may do, from the role the API enforces (viewer reads, operator writes,
 * admin administers). The console hides buttons the API would refuse; the API stays the guard.
 */
export function useCan(): (ability: Ability) => boolean {
  const role = useSession()?.user.role;
  return (ability) => {
    if (ability === 'read') return role !== undefined;
    if (ability === 'write') return role === 'operator' || role === 'admin';
    return role === 'admin';
  };
}
