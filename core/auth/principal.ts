import type { Role } from '../db/entities/user.ts';
import type { AgentNode } from './agent-token-cache.ts';

/** Who is making the request, as established by the access guard. */
export type Principal =
  | { kind: 'user'; userId: number; username: string; role: Role; sessionId?: string }
  | { kind: 'apiKey'; keyId: number; name: string; role: Role; createdById: number | null }
  | { kind: 'agent'; nodeId: number; nodeName: string; node: AgentNode };

/** The name written into audit entries: a real username, never a numeric subject. */
export function principalName(p: Principal | null): string {
  if (!p) return '';
  switch (p.kind) {
    case 'user':
      return p.username;
    case 'apiKey':
      return `api-key:${p.name}`;
    case 'agent':
      return `node:${p.nodeName}`;
  }
}
