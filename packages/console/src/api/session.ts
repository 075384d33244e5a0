/**
 * The signed-in session, kept in localStorage so a reload or a second tab stays signed in (the
 * API's sessions are bearer JWTs; it sets no session cookie). Cleared on logout and on any 401.
 */
export interface StoredSession {
  token: string;
  expiresAt: string;
  user: SessionUser;
  mfaEnrollmentRequired?: boolean;
  mfaEnrollmentDeadline?: string;
}

export interface SessionUser {
  id: number;
  username: string;
  displayName?: string;
  role: 'admin' | 'operator' | 'viewer';
  [key: string]: unknown;
}

const KEY = 'backplane.session';
type Listener = (session: StoredSession | null) => void;
const listeners = new Set<Listener>();

export function readSession(): StoredSession | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as StoredSession;
    if (Date.parse(session.expiresAt) <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

export function writeSession(session: StoredSession | null): void {
  if (session) localStorage.setItem(KEY, JSON.stringify(session));
  else localStorage.removeItem(KEY);
  for (const l of listeners) l(session);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function authHeaders(): Record<string, string> {
  const s = readSession();
  return s ? { authorization: `Bearer ${s.token}` } : {};
}
