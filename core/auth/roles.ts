import type { Role } from '../db/entities/user.ts';

/** Route access labels of the spec. */
export type Access = 'public' | 'auth' | 'operator' | 'admin' | 'agent';

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };
const REQUIRED: Record<'auth' | 'operator' | 'admin', number> = { auth: 1, operator: 2, admin: 3 };

export function roleAllows(role: Role, access: 'auth' | 'operator' | 'admin'): boolean {
  return RANK[role] >= REQUIRED[access];
}

/** The lesser of two roles (an API key never exceeds its creator's current role). */
export function lowerRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}
